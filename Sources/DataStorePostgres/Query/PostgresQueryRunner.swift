import DataStoreCore
import DataStoreKit

/// Runs a ``QueryPlan`` against the server as the LMDB store's executor runs it over a
/// snapshot: candidates in scan order, every condition re-checked on the record bytes, sorted
/// (unless the scan order is the sort), then offset and limit. With the limit pushed down,
/// candidates come in pages of `LIMIT` rows, so the scan stops about where LMDB's would.
struct PostgresQueryRunner {
    let layout: TableLayout
    let plan: QueryPlan
    private let predicates: [RecordPredicate]
    private let scans: [CandidateScan]

    /// A runner of `plan` over `layout`.
    /// - Throws: ``/DataStoreCore/DataStoreError`` `.schemaMismatch` when the plan's index is gone.
    init(layout: TableLayout, plan: QueryPlan) throws(DataStoreError) {
        self.layout = layout
        self.plan = plan
        predicates = RecordPredicate.ordered(plan.query.conditions)
        scans = try CandidateScan.scans(plan, layout: layout)
    }

    /// Whether the plan takes several statements whatever the rows (several windows), and so
    /// needs a transaction from the start to read one snapshot.
    var needsSeveralStatements: Bool { scans.count > 1 }

    /// The first statement ``run(on:singleStatement:materialize:)`` sends, or `nil` for a
    /// primary-key lookup or an empty plan.
    var firstStatement: (sql: String, parameters: [SQLParameter])? {
        guard let scan = scans.first else { return nil }
        let stopEarly = ResultCollector(plan: plan, idField: layout.idField, collection: layout.name).stopEarly
        return scan.statement(
            after: nil, limit: stopEarly.map { max($0, 16) }, ordered: !isUnlimitedFullScan(stopEarly))
    }

    /// Whether the plan reads the whole table, in no order the server must give.
    private func isUnlimitedFullScan(_ pageSize: Int?) -> Bool {
        if pageSize == nil, case .fullScan = plan.access { return true }
        return false
    }

    /// The matching records, each turned into an `Item` by `materialize` (given the record
    /// bytes and its version), over one snapshot of `connection`; `nil` when `singleStatement`
    /// and one statement did not answer (a second page was needed), so that the caller can run
    /// it again inside a transaction. A caller that does not need an unsorted whole-table scan's
    /// matches in id order (a count) passes `idOrder: false`.
    /// - Complexity: O(candidates × conditions), plus O(r log r) for an in-memory sort.
    func run<Item>(
        on connection: Connection, singleStatement: Bool = false, idOrder: Bool = true,
        materialize: (_ body: UnsafeRawBufferPointer, _ version: Int64) throws -> Item
    ) throws -> [Item]? {
        var collector = ResultCollector(plan: plan, idField: layout.idField, collection: layout.name)
        var items: [Item] = []
        let complete = try visitMatches(
            on: connection, pageSize: collector.stopEarly, singleStatement: singleStatement, idOrder: idOrder
        ) { record, version in
            let admission = try collector.admit(record)
            if admission != .stop { items.append(try materialize(record, version)) }
            return admission == .take
        }
        return complete ? collector.results(items) : nil
    }

    /// Calls `consider` with each matching record and its version in scan order until it returns
    /// `false`; a record met twice (a multi-value index, overlapping windows) only once. Returns
    /// `false` when `singleStatement` and a second statement was needed.
    private func visitMatches(
        on connection: Connection, pageSize: Int?, singleStatement: Bool, idOrder: Bool,
        _ consider: (UnsafeRawBufferPointer, Int64) throws -> Bool
    ) throws -> Bool {
        if case .primaryKey(let ids) = plan.access {
            try visitIDs(ids, on: connection, consider)
            return true
        }
        if singleStatement && scans.count > 1 { return false }
        var seen = Set<[UInt8]>()
        let deduplicate =
            scans.count > 1 || { if case .indexScan(let s) = plan.access { s.index.multiValue } else { false } }()
        for scan in scans {
            if isUnlimitedFullScan(pageSize) {
                try visitInIDOrder(scan, on: connection, idOrder: idOrder, consider)
                return true
            }
            var last: [UInt8]?
            var page = pageSize.map { max($0, 16) }
            while true {
                if last != nil && singleStatement { return false }
                let statement = scan.statement(after: last, limit: page)
                let result = try connection.executePrepared(statement.sql, statement.parameters)
                for row in 0..<result.rowCount {
                    if deduplicate, let id = result.bytes(row, 0), !seen.insert(id).inserted { continue }
                    if !(try visitIfMatching(result, row, consider)) { return true }
                }
                guard let size = page, result.rowCount == size else { break }
                last = result.bytes(result.rowCount - 1, scan.orderColumnPosition)
                page = size * 2
            }
        }
        return true
    }

    /// A whole-table scan without a limit: every row in the server's order (no sort on the
    /// server), the matches then visited in id order — the order LMDB's scan meets them in —
    /// unless `idOrder` is `false`.
    private func visitInIDOrder(
        _ scan: CandidateScan, on connection: Connection, idOrder: Bool,
        _ consider: (UnsafeRawBufferPointer, Int64) throws -> Bool
    ) throws {
        let statement = scan.statement(after: nil, limit: nil, ordered: false)
        let result = try connection.executePrepared(statement.sql, statement.parameters)
        var found: [(id: UnsafeRawBufferPointer, row: Int)] = []
        for row in 0..<result.rowCount {
            let record = result.unsafeBytes(row, 1)
            if try matches(record) { found.append((result.unsafeBytes(row, 0), row)) }
        }
        if idOrder && !zip(found, found.dropFirst()).allSatisfy({ !QueryResult.precedes($1.id, $0.id) }) {
            found.sort { QueryResult.precedes($0.id, $1.id) }
        }
        for (_, row) in found where !(try consider(result.unsafeBytes(row, 1), result.int(row, 2) ?? 0)) { return }
    }

    /// The records of `ids` that match, in the order given.
    private func visitIDs(
        _ ids: [Value], on connection: Connection, _ consider: (UnsafeRawBufferPointer, Int64) throws -> Bool
    ) throws {
        let keys = ids.compactMap { try? layout.idKey($0) }
        guard !keys.isEmpty else { return }
        let result = try connection.executePrepared(
            "SELECT id, record, version FROM \(layout.table) WHERE id = ANY($1::bytea[])",
            [.byteaArray(keys)])
        var position: [[UInt8]: Int] = [:]
        for row in 0..<result.rowCount { if let id = result.bytes(row, 0) { position[id] = row } }
        for key in keys {
            guard let row = position.removeValue(forKey: key) else { continue }
            if !(try visitIfMatching(result, row, consider)) { return }
        }
    }

    /// Calls `consider` with the record and version of `row` if the record meets every
    /// condition; returns whether to go on.
    private func visitIfMatching(
        _ result: QueryResult, _ row: Int, _ consider: (UnsafeRawBufferPointer, Int64) throws -> Bool
    ) throws -> Bool {
        let record = result.unsafeBytes(row, 1)
        guard try matches(record) else { return true }
        return try consider(record, result.int(row, 2) ?? 0)
    }

    /// Whether `record` meets every condition.
    private func matches(_ record: UnsafeRawBufferPointer) throws -> Bool {
        do { return try RecordPredicate.all(predicates, match: record) } catch {
            throw DataStoreError(.codec, "a record in \(layout.name) cannot be read", underlying: error)
        }
    }
}
