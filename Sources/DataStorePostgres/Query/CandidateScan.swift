import DataStoreCore
import DataStoreEngine

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
    /// Where a row's key in scan order comes from.
    private let rowKey: RowKey

    /// Where a row's key in scan order (the key its page continues after) comes from.
    private enum RowKey {
        /// The selected order column (or the id for an id scan).
        case selected
        /// The record's id, as the `id` column holds it (``lean``).
        case recordID
        /// The record's entry in this single-value index, as its column holds it (``lean``).
        case recordEntry(StoredIndex)
    }

    /// The scans of `plan` over `layout` (rows with their versions when `versions`), or `nil` for
    /// a primary-key lookup or an empty plan.
    static func scans(_ plan: QueryPlan, layout: TableLayout, versions: Bool) throws(DataStoreError)
        -> [CandidateScan]
    {
        switch plan.access {
        case .empty, .primaryKey:
            return []
        case .fullScan:
            return [CandidateScan(layout, .ids, IndexWindow(idRange: nil, backward: false), versions, .recordID)]
        case .idRange(let range, let backward):
            return [CandidateScan(layout, .ids, IndexWindow(idRange: range, backward: backward), versions, .recordID)]
        case .indexScan(let scan):
            guard let index = layout.indexes.first(where: { $0.definition == scan.index }) else {
                throw DataStoreError(.schemaMismatch, "index \(scan.index.name) of \(layout.name) is gone")
            }
            let source: StatementShape.Source =
                index.definition.multiValue ? .sideTable(index.column) : .column(index.column)
            let windows = IndexWindow.windows(for: scan, budget: index.componentBudget)
            // Rows of one window of a single-value index cannot come twice: no id is needed to
            // tell them apart.
            let rowKey: RowKey = windows.count == 1 && !index.definition.multiValue ? .recordEntry(index) : .selected
            return windows.map { window in CandidateScan(layout, source, window, versions, rowKey) }
        }
    }

    /// The scan of `window` of the single-value index `index`, the one window of its plan.
    init(_ layout: TableLayout, window: IndexWindow, of index: StoredIndex, versions: Bool = false) {
        self.init(layout, .column(index.column), window, versions, .recordEntry(index))
    }

    /// The scan of `window` of `index` (the records when `nil`) whose rows carry their id and the
    /// key they are ordered by, without versions: a resumable walk's (``PostgresWindowWalk``).
    init(_ layout: TableLayout, window: IndexWindow, of index: StoredIndex?) {
        switch index {
        case nil: self.init(layout, .ids, window, false, .selected)
        case let index? where index.definition.multiValue:
            self.init(layout, .sideTable(index.column), window, false, .selected)
        case let index?: self.init(layout, .column(index.column), window, false, .selected)
        }
    }

    private init(
        _ layout: TableLayout, _ source: StatementShape.Source, _ window: IndexWindow, _ versions: Bool,
        _ rowKey: RowKey
    ) {
        self.layout = layout
        self.versions = versions
        self.source = source
        self.window = SQLWindow(window)
        self.rowKey = rowKey
        backward = window.backward
    }

    /// Whether the rows carry the record (and version) alone: an id scan, or one window of a
    /// single-value index, whose rows cannot come twice.
    var lean: Bool {
        if case .selected = rowKey { return false }
        return true
    }

    /// Where the record is among the selected columns.
    var recordColumn: Int { lean ? 0 : 1 }

    /// Where the version is among the selected columns, when they carry it.
    var versionColumn: Int { lean ? 1 : 2 }

    /// The key the page after row `row` of `result` starts after: the row's order column, or for
    /// a ``lean`` scan the key computed from its record as the row's writer computed it.
    /// - Throws: ``/DataStoreCore/DataStoreError`` `.codec` when the record cannot be read.
    func pageKey(row: Int, of result: QueryResult) throws(DataStoreError) -> [UInt8]? {
        switch rowKey {
        case .selected:
            // Among `id`, `record`, `version` when asked, then the order column unless it is the id.
            return result.bytes(row, source == .ids ? 0 : versions ? 3 : 2)
        case .recordID:
            return try idKey(row: row, of: result)
        case .recordEntry(let index):
            let body = result.unsafeBytes(row, recordColumn)
            let entries = try index.definition.entries(
                forRecord: body, idKey: idKey(row: row, of: result), collection: layout.name)
            return entries.first?.key
        }
    }

    /// The `id` column of row `row` of `result`, read from the row or, for a ``lean`` scan,
    /// computed from its record.
    /// - Throws: ``/DataStoreCore/DataStoreError`` `.codec` when the record cannot be read.
    func idKey(row: Int, of result: QueryResult) throws(DataStoreError) -> [UInt8] {
        guard lean else { return result.bytes(row, 0) ?? [] }
        let id: Value?
        // The id is a top-level field named whole, as the writer stored it, never a path.
        do { id = try RecordCodec.field(layout.idField, in: result.unsafeBytes(row, recordColumn)) } catch {
            throw DataStoreError(.codec, "a record in \(layout.name) cannot be read", underlying: error)
        }
        guard let id else { throw DataStoreError(.codec, "a record in \(layout.name) has no \(layout.idField)") }
        return try layout.idKey(id)
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
