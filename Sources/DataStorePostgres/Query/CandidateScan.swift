import DataStoreCore
import DataStoreKit

/// One statement shape that yields a plan's candidate rows (`id`, `record`, `version`, and the
/// column the scan is ordered by) in the order LMDB's cursor would meet them.
struct CandidateScan {
    let layout: TableLayout
    /// Where the rows come from and the window's bounds.
    private var source: StatementShape.Source
    private var window: SQLWindow
    var backward: Bool

    /// The scans of `plan` over `layout`, or `nil` for a primary-key lookup or an empty plan.
    static func scans(_ plan: QueryPlan, layout: TableLayout) throws(DataStoreError) -> [CandidateScan] {
        switch plan.access {
        case .empty, .primaryKey:
            return []
        case .fullScan:
            return [CandidateScan(layout, .ids, IndexWindow(idRange: nil, backward: false))]
        case .idRange(let range, let backward):
            return [CandidateScan(layout, .ids, IndexWindow(idRange: range, backward: backward))]
        case .indexScan(let scan):
            guard let index = layout.indexes.first(where: { $0.definition == scan.index }) else {
                throw DataStoreError(.schemaMismatch, "index \(scan.index.name) of \(layout.name) is gone")
            }
            let source: StatementShape.Source =
                index.definition.multiValue ? .sideTable(index.column) : .column(index.column)
            return IndexWindow.windows(for: scan, budget: index.componentBudget).map { window in
                CandidateScan(layout, source, window)
            }
        }
    }

    private init(_ layout: TableLayout, _ source: StatementShape.Source, _ window: IndexWindow) {
        self.layout = layout
        self.source = source
        self.window = SQLWindow(window)
        backward = window.backward
    }

    /// Where the order column is among the selected ones (`id`, `record`, `version`, then the
    /// order column unless it is the id).
    var orderColumnPosition: Int { source == .ids ? 0 : 3 }

    /// The statement for the page after `last` (the first page when `nil`), of at most `limit`
    /// rows, in scan order unless `ordered` is `false` (then in whatever order the server finds).
    func statement(after last: [UInt8]?, limit: Int?, ordered: Bool = true) -> (
        sql: String, parameters: [SQLParameter]
    ) {
        var parameters = window.parameters
        if let last { parameters.append(.bytes(last)) }
        if let limit { parameters.append(.int(Int64(limit))) }
        let shape = StatementShape(
            source: source, lower: window.lower, hasUpper: window.hasUpper, after: last != nil,
            limited: limit != nil, ordered: ordered, backward: backward)
        return (layout.statementTexts.text(shape, in: layout), parameters)
    }
}
