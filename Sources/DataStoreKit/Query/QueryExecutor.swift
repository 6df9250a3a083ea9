import DataStoreCore
import LMDB

/// Runs a ``QueryPlan`` over one read snapshot: gathers candidates, re-checks every condition on
/// the stored bytes, sorts (unless the scan order is the sort), then applies offset and limit.
struct QueryExecutor {
    let storage: CollectionTable
    let plan: QueryPlan
    /// The conditions, prepared to be checked on record bytes.
    private let predicates: [RecordPredicate]

    init(storage: CollectionTable, plan: QueryPlan) {
        self.storage = storage
        self.plan = plan
        predicates = RecordPredicate.ordered(plan.query.conditions)
    }

    /// One result, with what sorting needs.
    private struct Row<Item> {
        var id: Value
        var sortValues: [Value?]
        var group: [UInt8]
        var item: Item
    }

    /// The matching records, each turned into an `Item` by `materialize` (given the document bytes
    /// and the record's version).
    /// - Complexity: O(candidates × conditions), plus O(r log r) for an in-memory sort of r results.
    func run<Item>(
        in transaction: borrowing some ReadableTransaction & ~Copyable,
        materialize: (_ body: UnsafeRawBufferPointer, _ version: Int) throws -> Item
    ) throws -> [Item] {
        if case .empty = plan.access { return [] }
        var collector = Collector<Item>(self)
        try visitCandidates(in: transaction) { idKey, record in
            // Most candidates of a filtered scan fail: check them in non-generic code first, so
            // that only matches reach the code generic over `Item` (unspecialized when the
            // caller's module cannot see it, and paying generic-metadata lookups per call).
            guard try candidateMatches(idKey, record) else { return true }
            do {
                return try collector.consider(record, materialize)
            } catch let error as DataStoreError where error.code == .codec {
                throw storage.unreadable(idKey, error.underlying ?? error)
            } catch let error as DataStoreError {
                throw error
            } catch {
                throw storage.unreadable(idKey, error)
            }
        }
        return collector.results()
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
        let windows = IndexWindow.windows(for: scan, budget: index.componentBudget)
        var seen = Set<[UInt8]>()
        var stopped = false
        var lookups = 0
        defer { storage.noteRecordLookups(lookups) }
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

    /// Gathers the matches of one run: in scan order without a sort, else as rows with their sort
    /// values, then sorted; offset and limit apply at the end.
    private struct Collector<Item> {
        let executor: QueryExecutor
        let offset: Int
        let limit: Int?
        /// Where the scan may stop: `offset + limit` when the limit is pushed into it.
        let stopEarly: Int?
        /// The per-component budget of the index whose order is the sort, for runs of cut keys.
        let sortBudget: Int?
        var items: [Item] = []
        var rows: [Row<Item>] = []
        var lastGroup: [UInt8]?

        init(_ executor: QueryExecutor) {
            self.executor = executor
            let plan = executor.plan
            // Negative values mean 0 (``/DataStoreCore/Query/limit``, ``/DataStoreCore/Query/offset``).
            let offset = max(0, plan.query.offset)
            let limit = plan.query.limit.map { max(0, $0) }
            (self.offset, self.limit) = (offset, limit)
            let stopEarly = plan.limitPushedDown ? limit.map { offset + $0 } : nil
            self.stopEarly = stopEarly
            if case .indexScan(let scan) = plan.access, plan.sortFromScan {
                sortBudget = StorageKeys.componentBudget(fieldCount: scan.index.fields.count)
            } else {
                sortBudget = nil
            }
            // Without a sort, items are kept as they come (scan order); rows carry sort keys and
            // ids only for a sort. Room is made up front only for a known count: a point query
            // that matches little would pay for the allocation on every call.
            if let stopEarly {
                if plan.query.sort.isEmpty {
                    items.reserveCapacity(min(stopEarly, 1_024))
                } else {
                    rows.reserveCapacity(min(stopEarly, 1_024))
                }
            }
        }

        /// Takes a matching record; returns `false` to stop the scan.
        mutating func consider(
            _ record: UnsafeRawBufferPointer, _ materialize: (UnsafeRawBufferPointer, Int) throws -> Item
        ) throws -> Bool {
            let query = executor.plan.query
            let body = RecordVersion.body(record)
            guard !query.sort.isEmpty else {
                if let stopEarly, items.count >= stopEarly { return false }
                items.append(try materialize(body, try RecordVersion.read(record)))
                // With the limit reached, stop without reading another record.
                return stopEarly.map { items.count < $0 } ?? true
            }
            let sortValues = try query.sort.map { try executor.field($0.field, in: body) }
            var group: [UInt8] = []
            if let sortBudget {
                // Entries sharing a cut component are in id order, not value order, whatever
                // follows it: a run of equal keys ends at the first cut component.
                for (key, value) in zip(query.sort, sortValues) {
                    if StorageKeys.appendComponent(value, descending: !key.ascending, budget: sortBudget, to: &group) {
                        break
                    }
                }
            }
            if let stopEarly, rows.count >= stopEarly {
                // Past the limit: finish only the run of equal sort keys that straddles it.
                guard sortBudget != nil, group == lastGroup else { return false }
            }
            // Ids break ties between sort keys.
            let id = try executor.field(executor.storage.idField, in: body) ?? .null
            rows.append(
                Row(
                    id: id, sortValues: sortValues, group: group,
                    item: try materialize(body, try RecordVersion.read(record))))
            lastGroup = group
            return true
        }

        /// The results, sorted when the query has a sort, within the offset and the limit.
        func results() -> [Item] {
            guard !executor.plan.query.sort.isEmpty else {
                if offset == 0 && (limit ?? .max) >= items.count { return items }
                let kept = QueryExecutor.window(items.count, offset: offset, limit: limit)
                return kept == items.indices ? items : Array(items[kept])
            }
            let ordered = executor.sortRows(rows)
            // A closure, not `\.item`: a key path is instantiated at run time on every call.
            return ordered[QueryExecutor.window(ordered.count, offset: offset, limit: limit)].map { $0.item }
        }
    }

    /// The positions of `count` results that `offset` and `limit` (already clamped to ≥ 0) keep.
    private static func window(_ count: Int, offset: Int, limit: Int?) -> Range<Int> {
        let from = min(offset, count)
        return from..<(limit.map { min(count, from + $0) } ?? count)
    }

    /// Whether the record passes every condition; a record that cannot be read is named by its id.
    private func candidateMatches(_ idKey: UnsafeRawBufferPointer, _ record: UnsafeRawBufferPointer) throws -> Bool {
        try storage.recordMatches(predicates, RecordVersion.body(record), idKey: idKey)
    }

    private func field(_ name: String, in body: UnsafeRawBufferPointer) throws -> Value? {
        do {
            return try RecordCodec.value(atPath: name, in: body)
        } catch {
            throw DataStoreError(
                .codec, "a record in \(storage.name) cannot be read (field \(name))", underlying: error)
        }
    }

    /// Sorts the rows of a sorted query: in memory, or — when the scan gave the order — within
    /// runs of equal index keys only.
    private func sortRows<Item>(_ rows: [Row<Item>]) -> [Row<Item>] {
        let query = plan.query
        var rows = rows
        let inOrder: (Row<Item>, Row<Item>) -> Bool = { a, b in
            for (position, key) in query.sort.enumerated() {
                let order = Query.compareSortValues(a.sortValues[position], b.sortValues[position])
                if order != 0 { return key.ascending ? order < 0 : order > 0 }
            }
            return Value.compare(a.id, b.id) < 0
        }
        if plan.sortFromScan {
            // The scan ordered runs of equal (possibly cut) keys by id in scan direction:
            // order each run by the real values, then by id.
            var start = 0
            while start < rows.count {
                var end = start + 1
                while end < rows.count && rows[end].group == rows[start].group { end += 1 }
                if end - start > 1 { rows[start..<end].sort(by: inOrder) }
                start = end
            }
        } else {
            rows.sort(by: inOrder)
        }
        return rows
    }
}
