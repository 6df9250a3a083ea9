import DataStoreCore
import DataStoreKit

/// One statement shape that yields a plan's candidate rows (`id`, `record`, `version` when asked,
/// and the column the scan is ordered by) in the order LMDB's cursor would meet them.
struct CandidateScan {
    let layout: TableLayout
    /// Where the rows come from and the window's bounds.
    private var source: StatementShape.Source
    private var window: SQLWindow
    var backward: Bool
    /// Whether the rows carry their version.
    let versions: Bool

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
            return IndexWindow.windows(for: scan, budget: index.componentBudget).map { window in
                CandidateScan(layout, source, window, versions)
            }
        }
    }

    private init(_ layout: TableLayout, _ source: StatementShape.Source, _ window: IndexWindow, _ versions: Bool) {
        self.layout = layout
        self.versions = versions
        self.source = source
        self.window = SQLWindow(window)
        backward = window.backward
    }

    /// Where the order column is among the selected ones (`id`, `record`, `version` when asked,
    /// then the order column unless it is the id).
    var orderColumnPosition: Int { source == .ids ? 0 : versions ? 3 : 2 }

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
            limited: limit != nil, ordered: ordered, backward: backward, versions: versions)
        return (layout.statementTexts.text(shape, in: layout), parameters)
    }
}
