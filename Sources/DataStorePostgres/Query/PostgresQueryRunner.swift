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

    init(layout: TableLayout, plan: QueryPlan) {
        self.layout = layout
        self.plan = plan
        predicates = RecordPredicate.ordered(plan.query.conditions)
    }

    /// Whether the plan may need more than one statement (pages, or several windows), and so
    /// a transaction to keep one snapshot.
    var mayTakeSeveralStatements: Bool {
        switch plan.access {
        case .empty, .primaryKey: return false
        case .indexScan(let scan): return plan.limitPushedDown || scan.firstFieldValues != nil
        case .idRange, .fullScan: return plan.limitPushedDown
        }
    }

    /// The matching records, each turned into an `Item` by `materialize` (given the record
    /// bytes and its version), over one snapshot of `connection`.
    /// - Complexity: O(candidates × conditions), plus O(r log r) for an in-memory sort.
    func run<Item>(
        on connection: Connection, materialize: (_ body: UnsafeRawBufferPointer, _ version: Int64) throws -> Item
    ) throws -> [Item] {
        var collector = ResultCollector(plan: plan, idField: layout.idField, collection: layout.name)
        var items: [Item] = []
        try visitCandidates(on: connection, pageSize: collector.stopEarly) { record, version in
            guard try matches(record) else { return true }
            let admission = try collector.admit(record)
            if admission != .stop { items.append(try materialize(record, version)) }
            return admission == .take
        }
        return collector.results(items)
    }

    /// Calls `consider` with each candidate's record and version in scan order until it returns
    /// `false`; a record met twice (a multi-value index, overlapping windows) only once.
    private func visitCandidates(
        on connection: Connection, pageSize: Int?, _ consider: (UnsafeRawBufferPointer, Int64) throws -> Bool
    ) throws {
        if case .primaryKey(let ids) = plan.access {
            try visitIDs(ids, on: connection, consider)
            return
        }
        let scans = try CandidateScan.scans(plan, layout: layout)
        var seen = Set<[UInt8]>()
        let deduplicate =
            scans.count > 1 || { if case .indexScan(let s) = plan.access { s.index.multiValue } else { false } }()
        for scan in scans {
            var last: [UInt8]?
            var page = pageSize.map { max($0, 16) }
            while true {
                let statement = scan.statement(after: last, limit: page)
                let result = try connection.execute(statement.sql, statement.parameters)
                for row in 0..<result.rowCount {
                    if deduplicate, let id = result.bytes(row, 0), !seen.insert(id).inserted { continue }
                    let version = result.int(row, 2) ?? 0
                    let more = try result.withBytes(row, 1) { record in
                        try consider(record ?? UnsafeRawBufferPointer(start: nil, count: 0), version)
                    }
                    if !more { return }
                }
                guard let size = page, result.rowCount == size else { break }
                last = result.bytes(result.rowCount - 1, 3)
                page = size * 2
            }
        }
    }

    /// The records of `ids`, in the order given.
    private func visitIDs(
        _ ids: [Value], on connection: Connection, _ consider: (UnsafeRawBufferPointer, Int64) throws -> Bool
    ) throws {
        let keys = ids.compactMap { try? layout.idKey($0) }
        guard !keys.isEmpty else { return }
        let result = try connection.execute(
            "SELECT id, record, version FROM \(layout.table) WHERE id = ANY($1::bytea[])",
            [.byteaArray(keys)])
        var position: [[UInt8]: Int] = [:]
        for row in 0..<result.rowCount { if let id = result.bytes(row, 0) { position[id] = row } }
        for key in keys {
            guard let row = position.removeValue(forKey: key) else { continue }
            let version = result.int(row, 2) ?? 0
            let more = try result.withBytes(row, 1) { record in
                try consider(record ?? UnsafeRawBufferPointer(start: nil, count: 0), version)
            }
            if !more { return }
        }
    }

    private func matches(_ record: UnsafeRawBufferPointer) throws -> Bool {
        do { return try RecordPredicate.all(predicates, match: record) } catch {
            throw DataStoreError(.codec, "a record in \(layout.name) cannot be read", underlying: error)
        }
    }
}
