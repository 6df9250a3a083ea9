import DataStoreCore
import LMDB
import DataStoreEngine

/// Runs a ``/DataStoreEngine/QueryPlan`` over one read snapshot: gathers candidates, re-checks every condition on
/// the stored bytes, sorts (unless the scan order is the sort), then applies offset and limit.
struct QueryExecutor {
    let storage: CollectionTable
    let plan: QueryPlan
    init(storage: CollectionTable, plan: QueryPlan) {
        self.storage = storage
        self.plan = plan
    }

    /// The matching records, each turned into an `Item` by `materialize` (given the document bytes
    /// and the record's version).
    /// - Complexity: O(candidates × conditions), plus O(r log r) for an in-memory sort of r results.
    func run<Item>(
        in transaction: borrowing some ReadableTransaction & ~Copyable,
        materialize: (_ body: UnsafeRawBufferPointer, _ version: Int) throws -> Item
    ) throws -> [Item] {
        var items = CollectedItems<Item>(capacity: ResultCollector.expectedCount(of: plan) ?? 16)
        let collector = try take(in: transaction) { body, version in items.append(try materialize(body, version)) }
        return collector?.results(items.array()) ?? []
    }

    /// Hands `take` the body and version of each record the plan admits, in the order found, and
    /// returns the collector whose ``ResultCollector/results(_:)`` puts what `take` made in the
    /// query's order and window (`nil` for an empty plan, which takes nothing).
    ///
    /// Not generic, so that a caller can collect in code compiled for its own item type.
    func take(
        in transaction: borrowing some ReadableTransaction & ~Copyable,
        _ take: (_ body: UnsafeRawBufferPointer, _ version: Int) throws -> Void
    ) throws -> ResultCollector? {
        if case .empty = plan.access { return nil }
        var collector = ResultCollector(plan: plan, idField: storage.idField, collection: storage.name)
        // Prepared at the first candidate: a query that finds none (a point query for a missing
        // value) does not pay for them.
        var predicates: [RecordPredicate]?
        try visitCandidates(in: transaction) { idKey, record in
            guard try candidateMatches(&predicates, idKey, record) else { return true }
            return try storage.namingRecord(idKey) {
                let body = RecordVersion.body(record)
                let admission = try collector.admit(body)
                if admission != .stop { try take(body, try RecordVersion.read(record)) }
                return admission == .take
            }
        }
        return collector
    }

    /// Calls `consider` with the record key and record of each candidate the plan's access
    /// yields, once per document, until it returns `false`.
    private func visitCandidates(
        in transaction: borrowing some ReadableTransaction & ~Copyable,
        _ consider: (_ idKey: UnsafeRawBufferPointer, _ record: UnsafeRawBufferPointer) throws -> Bool
    ) throws {
        switch plan.access {
        case .empty:
            return
        case .primaryKey(let ids):
            for id in ids {
                guard let key = try? storage.idKey(id) else { continue }
                let keepGoing = try transaction.withValue(forKey: key, in: storage.records) { record in
                    try key.withUnsafeBytes { try consider($0, record) }
                }
                if keepGoing == false { break }
            }
        case .idRange(let range, let backward):
            try IndexWindow(idRange: range, backward: backward).visitEntries(storage.records, in: transaction) {
                key, record in
                try consider(key, record)
            }
        case .fullScan:
            try transaction.walk(storage.records) { key, value in try consider(key, value) }
        case .indexScan(let scan):
            try visitIndex(scan, in: transaction, consider)
        }
    }

    /// The candidates of an index scan, each document once.
    private func visitIndex(
        _ scan: QueryPlan.IndexScan,
        in transaction: borrowing some ReadableTransaction & ~Copyable,
        _ consider: (_ idKey: UnsafeRawBufferPointer, _ record: UnsafeRawBufferPointer) throws -> Bool
    ) throws {
        guard let index = storage.indexes.first(where: { $0.definition == scan.index }) else {
            throw DataStoreError(.schemaMismatch, "index \(scan.index.name) of \(storage.name) is gone")
        }
        var lookups = 0
        defer { storage.noteRecordLookups(lookups) }
        if let (narrowing, intersection) = intersection(scan, index) {
            try transaction.withCursor(on: index.database) { primary in
                try transaction.withCursor(on: narrowing.database) { secondary in
                    try intersection.visit(primary, secondary) { key, value in
                        guard let idKey = StorageKeys.idKey(inIndexKey: key) else { return true }
                        let outcome = try storage.withRecord(
                            ofEntry: value, idKey: idKey, in: index, transaction: transaction, lookups: &lookups
                        ) { try consider(idKey, $0) }
                        // An entry without a record cannot happen inside one snapshot: go on, as a plain scan does.
                        return outcome != false
                    }
                }
            }
            return
        }
        let windows = IndexWindow.windows(for: scan, budget: index.componentBudget)
        var seen = Set<[UInt8]>()
        var stopped = false
        for window in windows where !stopped {
            try window.visitEntries(index.database, in: transaction) { key, value in
                guard let idKey = StorageKeys.idKey(inIndexKey: key) else { return true }
                // A document can have several entries (elements of a multi-value field), and
                // overlapping windows of cut keys can both hold it.
                if (index.definition.multiValue || windows.count > 1) && !seen.insert(Array(idKey)).inserted {
                    return true
                }
                let outcome = try storage.withRecord(
                    ofEntry: value, idKey: idKey, in: index, transaction: transaction, lookups: &lookups
                ) { try consider(idKey, $0) }
                stopped = outcome == false // an entry without a record cannot happen inside one snapshot
                return !stopped
            }
        }
    }

    /// The index that narrows `scan` of `index` and the walk over both windows, when the plan
    /// has one and neither window's value was cut.
    private func intersection(_ scan: QueryPlan.IndexScan, _ index: IndexTable) -> (IndexTable, IndexIntersection)? {
        guard let narrowingScan = plan.intersection,
            let narrowing = storage.readyIndexes.first(where: { $0.definition == narrowingScan.index }),
            let primary = IndexIntersection.exactPrefix(of: scan, budget: index.componentBudget),
            let secondary = IndexIntersection.exactPrefix(of: narrowingScan, budget: narrowing.componentBudget)
        else { return nil }
        return (narrowing, IndexIntersection(primary: primary, secondary: secondary))
    }

    /// Whether the record passes every condition; a record that cannot be read is named by its id.
    /// The predicates are prepared at the first candidate; `inout`, they are lent, not copied
    /// (a copy of the captured array retained and released it for every candidate).
    @inline(__always)
    private func candidateMatches(
        _ predicates: inout [RecordPredicate]?, _ idKey: UnsafeRawBufferPointer, _ record: UnsafeRawBufferPointer
    ) throws -> Bool {
        if predicates == nil { predicates = RecordPredicate.ordered(plan.query.conditions) }
        return try predicates!.withUnsafeBufferPointer { predicates in
            try storage.recordMatches(predicates, RecordVersion.body(record), idKey: idKey)
        }
    }
}
