import DataStoreCore
import LMDB
import DataStoreEngine

/// Runs a ``/DataStoreEngine/QueryPlan`` a batch at a time: each batch returns at most a given number of matches
/// and the ``ScanPosition`` just after the last, and the next batch — in the same read
/// transaction or a later one — seeks to that position instead of walking the rows again.
///
/// The order is the query's whenever it has a sort (ties by id ascending, as
/// ``QueryExecutor`` gives them), else the scan's. A sort the plan does not serve from an index
/// or the id order would need every match in memory, so it is refused.
struct ResumableScan {
    let storage: CollectionTable
    let plan: QueryPlan
    /// The conditions, prepared to be checked on record bytes.
    let predicates: [RecordPredicate]

    /// A batch of matches, and where the next one starts (`nil`: there are no more).
    struct Batch<Item> {
        var items: [Item]
        var after: ScanPosition?
    }

    /// Turns a matching record's document bytes (and its version) into a result.
    typealias Materialize<Item> = (_ body: UnsafeRawBufferPointer, _ version: Int) throws -> Item

    /// - Throws: ``/DataStoreCore/DataStoreError/Code/invalidOption`` naming the sort when the plan sorts in memory.
    init(storage: CollectionTable, plan: QueryPlan) throws(DataStoreError) {
        if !plan.query.sort.isEmpty && !plan.sortFromScan {
            switch plan.access {
            case .primaryKey, .empty: break
            default:
                let keys = plan.query.sort.map(\.description).joined(separator: ", ")
                throw DataStoreError(
                    .invalidOption,
                    "query option \"sort\" (\(keys)) is not served by an index of \(storage.name), so its results "
                        + "cannot be streamed or paged in bounded memory; declare an index whose fields after the "
                        + "equality conditions are the sort fields, or use query(params:options:)")
            }
        }
        self.storage = storage
        self.plan = plan
        predicates = RecordPredicate.ordered(plan.query.conditions)
    }

    /// Identifies the plan's order, for tokens: a position means something only on the same walk.
    var signature: String {
        switch plan.access {
        case .empty: "empty"
        case .primaryKey: "ids"
        case .fullScan: "records"
        case .idRange(_, let backward): "records\(backward ? "-" : "+")"
        case .indexScan(let scan): "index \(scan.index.name) \(scan.index.fields)\(scan.backward ? "-" : "+")"
        }
    }

    /// At most `count` matches after `position` (from the start when `nil`), in order.
    /// - Complexity: O(log n) to resume, then O(candidates read); a sorted index scan also reads
    ///   again the rows of the run of equal sort keys it resumes in.
    func batch<Item>(
        after position: ScanPosition?, count: Int,
        in transaction: borrowing some ReadableTransaction & ~Copyable,
        materialize: Materialize<Item>
    ) throws -> Batch<Item> {
        let count = max(1, count)
        switch plan.access {
        case .empty:
            return Batch(items: [], after: nil)
        case .primaryKey:
            let all = try QueryExecutor(storage: storage, plan: plan).run(in: transaction, materialize: materialize)
            guard case .rows(let done)? = position ?? .rows(count: 0) else { throw Self.misplaced() }
            let items = Array(all.dropFirst(done).prefix(count))
            return Batch(items: items, after: done + items.count < all.count ? .rows(count: done + items.count) : nil)
        case .fullScan:
            return try keyBatch(
                [IndexWindow(idRange: nil, backward: false)], index: nil, after: position, count, transaction,
                materialize)
        case .idRange(let range, let backward):
            return try keyBatch(
                [IndexWindow(idRange: range, backward: backward)], index: nil, after: position, count, transaction,
                materialize)
        case .indexScan(let scan):
            guard let index = storage.indexes.first(where: { $0.definition == scan.index }) else {
                throw DataStoreError(.schemaMismatch, "index \(scan.index.name) of \(storage.name) is gone")
            }
            if plan.query.sort.isEmpty {
                let windows = IndexWindow.windows(for: scan, budget: index.componentBudget)
                return try keyBatch(windows, index: index, after: position, count, transaction, materialize)
            }
            return try SortedBatch(scan: self, index: index, indexScan: scan).batch(
                after: position, count: count, in: transaction, materialize: materialize)
        }
    }

    /// The error for a position that does not belong to this walk (the fingerprint matched, so
    /// only a hand-made token can get here).
    static func misplaced() -> DataStoreError {
        DataStoreError(.invalidPageToken, "the page token does not hold a position of this query's plan")
    }

    /// A batch of a walk in key order: the records (`index` nil) or the entries of an index, over
    /// one or more windows visited in turn.
    private func keyBatch<Item>(
        _ windows: [IndexWindow], index: IndexTable?, after position: ScanPosition?, _ count: Int,
        _ transaction: borrowing some ReadableTransaction & ~Copyable, _ materialize: Materialize<Item>
    ) throws -> Batch<Item> {
        var first = 0
        var resumeKey: [UInt8]?
        switch position {
        case nil: break
        case .key(let window, let key)? where window < windows.count:
            (first, resumeKey) = (window, key)
        default: throw Self.misplaced()
        }
        var items: [Item] = []
        var last: ScanPosition?
        let deduplicate = index.map { $0.definition.multiValue || windows.count > 1 } ?? false
        var lookups = 0
        defer { storage.noteRecordLookups(lookups) }
        for number in first..<windows.count {
            let window =
                number == first
                ? resumeKey.map { windows[number].resuming(after: $0) } ?? windows[number] : windows[number]
            let database = index?.database ?? storage.records
            try window.visitEntries(database, in: transaction) { key, value in
                let matched: Item?
                if let index {
                    guard let idKey = StorageKeys.idKey(inIndexKey: key) else { return true }
                    matched =
                        try storage.withRecord(
                            ofEntry: value, idKey: idKey, in: index, transaction: transaction, lookups: &lookups
                        ) { record in
                            if deduplicate, try !Self.isFirstVisit(key, number, windows, index, record, idKey, storage)
                            {
                                return nil
                            }
                            return try match(idKey, record, materialize)
                        } ?? nil
                } else {
                    matched = try match(key, value, materialize)
                }
                guard let matched else { return true }
                items.append(matched)
                last = .key(window: number, key: Array(key))
                return items.count < count
            }
            if items.count >= count { return Batch(items: items, after: last) }
        }
        return Batch(items: items, after: nil)
    }

    /// The record turned into an item when it passes every condition, else `nil`.
    func match<Item>(
        _ idKey: UnsafeRawBufferPointer, _ record: UnsafeRawBufferPointer, _ materialize: Materialize<Item>
    ) throws -> Item? {
        guard try storage.recordMatches(predicates, RecordVersion.body(record), idKey: idKey) else { return nil }
        return try materialized(idKey, record, materialize)
    }

    /// A matching record turned into an item; a failure names the record.
    func materialized<Item>(
        _ idKey: UnsafeRawBufferPointer, _ record: UnsafeRawBufferPointer, _ materialize: Materialize<Item>
    ) throws -> Item {
        do {
            return try materialize(RecordVersion.body(record), try RecordVersion.read(record))
        } catch let error as DataStoreError {
            throw error
        } catch {
            throw storage.unreadable(idKey, error)
        }
    }

    /// Whether the entry `key` in window `number` is the first of its document's entries the
    /// walk meets, so that a document reached through several elements (a multi-value index) or
    /// several overlapping windows is returned once, with no memory of what was returned.
    private static func isFirstVisit(
        _ key: UnsafeRawBufferPointer, _ number: Int, _ windows: [IndexWindow], _ index: IndexTable,
        _ record: UnsafeRawBufferPointer, _ idKey: UnsafeRawBufferPointer, _ storage: CollectionTable
    ) throws -> Bool {
        let keys: [[UInt8]] =
            index.definition.multiValue
            ? try index.entries(forRecord: RecordVersion.body(record), idKey: Array(idKey), collection: storage.name)
                .map(\.key)
            : [Array(key)]
        for (position, window) in windows.enumerated() {
            let inside = keys.filter(window.contains)
            let firstMet =
                window.backward
                ? inside.max { $0.lexicographicallyPrecedes($1) } : inside.min { $0.lexicographicallyPrecedes($1) }
            guard let firstMet else { continue }
            return position == number && firstMet.elementsEqual(key)
        }
        return false
    }
}
