import DataStoreCore
import DataStoreKit

/// One statement shape that yields a plan's candidate rows (`id`, `record`, `version`, and the
/// column the scan is ordered by) in the order LMDB's cursor would meet them.
struct CandidateScan {
    /// `FROM … WHERE …` without the page condition.
    var source: String
    /// The window's condition.
    var condition: String
    /// The window's parameters.
    var parameters: [SQLParameter]
    /// The column rows are ordered and paged by: a key that ends with the id, so it is unique.
    var orderColumn: String
    var backward: Bool

    /// The scans of `plan` over `layout`, or `nil` for a primary-key lookup or an empty plan.
    static func scans(_ plan: QueryPlan, layout: TableLayout) throws(DataStoreError) -> [CandidateScan] {
        switch plan.access {
        case .empty, .primaryKey:
            return []
        case .fullScan:
            return [CandidateScan(idWindow: IndexWindow(idRange: nil, backward: false), layout: layout)]
        case .idRange(let range, let backward):
            return [CandidateScan(idWindow: IndexWindow(idRange: range, backward: backward), layout: layout)]
        case .indexScan(let scan):
            guard let index = layout.indexes.first(where: { $0.definition == scan.index }) else {
                throw DataStoreError(.schemaMismatch, "index \(scan.index.name) of \(layout.name) is gone")
            }
            return IndexWindow.windows(for: scan, budget: index.componentBudget).map { window in
                CandidateScan(window, index: index, layout: layout)
            }
        }
    }

    private init(idWindow window: IndexWindow, layout: TableLayout) {
        let sql = SQLWindow(window, column: "t.id", firstParameter: 1)
        source = "FROM \(layout.table) t"
        condition = sql.condition
        parameters = sql.parameters
        orderColumn = "t.id"
        backward = window.backward
    }

    private init(_ window: IndexWindow, index: StoredIndex, layout: TableLayout) {
        if index.definition.multiValue {
            source = "FROM \(layout.sideTable(index)) m JOIN \(layout.table) t ON t.id = m.id"
            orderColumn = "m.key"
        } else {
            source = "FROM \(layout.table) t"
            orderColumn = "t.\(index.keyColumn)"
        }
        let sql = SQLWindow(window, column: orderColumn, firstParameter: 1)
        condition = sql.condition
        parameters = sql.parameters
        backward = window.backward
    }

    /// Where the order column is among the selected ones (`id`, `record`, `version`, then the
    /// order column unless it is the id).
    var orderColumnPosition: Int { orderColumn == "t.id" ? 0 : 3 }

    /// The statement for the page after `last` (the first page when `nil`), of at most `limit`
    /// rows, in scan order unless `ordered` is `false` (then in whatever order the server finds).
    func statement(after last: [UInt8]?, limit: Int?, ordered: Bool = true) -> (
        sql: String, parameters: [SQLParameter]
    ) {
        var parameters = self.parameters
        var condition = self.condition
        if let last {
            parameters.append(.bytes(last))
            condition += " AND \(orderColumn) \(backward ? "<" : ">") $\(parameters.count)"
        }
        let extra = orderColumnPosition == 0 ? "" : ", \(orderColumn)"
        var sql = "SELECT t.id, t.record, t.version\(extra) \(source) WHERE \(condition)"
        if ordered { sql += " ORDER BY \(orderColumn)\(backward ? " DESC" : "")" }
        if let limit {
            parameters.append(.int(Int64(limit)))
            sql += " LIMIT $\(parameters.count)"
        }
        return (sql, parameters)
    }
}
