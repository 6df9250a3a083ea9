import DataStoreCore
import DataStoreKit

/// One statement shape that yields a plan's candidate rows (`id`, `record`, `version` when asked,
/// and the column the scan is ordered by; or, when ``lean``, `record` and `version` alone) in the
/// order LMDB's cursor would meet them.
struct CandidateScan {
    let layout: TableLayout
    /// Where the rows come from and the window's bounds.
    private var source: StatementShape.Source
    private var window: SQLWindow
    var backward: Bool
    /// Whether the rows carry their version.
    let versions: Bool
    /// The single-value index whose column orders the rows when they carry neither id nor key
    /// (``lean``): the next page's key is then computed from the last record.
    private let keyIndex: StoredIndex?

    /// The scans of `plan` over `layout` (rows with their versions when `versions`), or `nil` for
    /// a primary-key lookup or an empty plan.
    static func scans(_ plan: QueryPlan, layout: TableLayout, versions: Bool) throws(DataStoreError)
        -> [CandidateScan]
    {
        switch plan.access {
        case .empty, .primaryKey:
            return []
        case .fullScan:
            return [CandidateScan(layout, .ids, IndexWindow(idRange: nil, backward: false), versions)]
        case .idRange(let range, let backward):
            return [CandidateScan(layout, .ids, IndexWindow(idRange: range, backward: backward), versions)]
        case .indexScan(let scan):
            guard let index = layout.indexes.first(where: { $0.definition == scan.index }) else {
                throw DataStoreError(.schemaMismatch, "index \(scan.index.name) of \(layout.name) is gone")
            }
            let source: StatementShape.Source =
                index.definition.multiValue ? .sideTable(index.column) : .column(index.column)
            let windows = IndexWindow.windows(for: scan, budget: index.componentBudget)
            // Rows of one window of a single-value index cannot come twice: no id is needed to
            // tell them apart.
            let keyIndex = windows.count == 1 && !index.definition.multiValue ? index : nil
            return windows.map { window in CandidateScan(layout, source, window, versions, keyIndex: keyIndex) }
        }
    }

    private init(
        _ layout: TableLayout, _ source: StatementShape.Source, _ window: IndexWindow, _ versions: Bool,
        keyIndex: StoredIndex? = nil
    ) {
        self.layout = layout
        self.versions = versions
        self.source = source
        self.window = SQLWindow(window)
        self.keyIndex = keyIndex
        backward = window.backward
    }

    /// Whether the rows carry the record (and version) alone.
    var lean: Bool { keyIndex != nil }

    /// Where the record is among the selected columns.
    var recordColumn: Int { lean ? 0 : 1 }

    /// Where the version is among the selected columns, when they carry it.
    var versionColumn: Int { lean ? 1 : 2 }

    /// The key the page after row `row` of `result` starts after: the row's order column, or for
    /// a ``lean`` scan the key computed from its record as the row's writer computed it.
    /// - Throws: ``/DataStoreCore/DataStoreError`` `.codec` when the record cannot be read.
    func pageKey(row: Int, of result: QueryResult) throws(DataStoreError) -> [UInt8]? {
        guard let index = keyIndex else {
            // Among `id`, `record`, `version` when asked, then the order column unless it is the id.
            return result.bytes(row, source == .ids ? 0 : versions ? 3 : 2)
        }
        let body = result.unsafeBytes(row, recordColumn)
        let id: Value?
        do { id = try RecordCodec.value(atPath: layout.idField, in: body) } catch {
            throw DataStoreError(.codec, "a record in \(layout.name) cannot be read", underlying: error)
        }
        guard let id else { throw DataStoreError(.codec, "a record in \(layout.name) has no \(layout.idField)") }
        let entries = try index.definition.entries(forRecord: body, idKey: layout.idKey(id), collection: layout.name)
        return entries.first?.key
    }

    /// The statement for the page after `last` (the first page when `nil`), of at most `limit`
    /// rows, in scan order unless `ordered` is `false` (then in whatever order the server finds).
    func statement(after last: [UInt8]?, limit: Int?, ordered: Bool = true) -> (
        sql: SQLText, parameters: [SQLParameter]
    ) {
        var parameters = window.parameters
        if let last { parameters.append(.bytes(last)) }
        if let limit { parameters.append(.int(Int64(limit))) }
        let shape = StatementShape(
            source: source, lower: window.lower, hasUpper: window.hasUpper, after: last != nil,
            limited: limit != nil, ordered: ordered, backward: backward, versions: versions, lean: lean)
        return (layout.statementTexts.text(shape, in: layout), parameters)
    }
}
