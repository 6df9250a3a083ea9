import DataStoreCore
import LMDB
import DataStoreEngine

/// A ``/DataStoreEngine/ResumableWalk`` over the collection's LMDB databases: each batch walks
/// the records or an index's entries with a cursor of the read transaction it is given.
struct ResumableScan {
    let storage: CollectionTable
    let walk: ResumableWalk

    /// Turns a matching record's document bytes (and its version) into a result.
    typealias Materialize<Item> = ResumableWalk.Materialize<Item>

    /// - Throws: ``/DataStoreCore/DataStoreError/Code/invalidOption`` naming the sort when the plan sorts in memory.
    init(storage: CollectionTable, plan: QueryPlan) throws(DataStoreError) {
        self.storage = storage
        walk = try ResumableWalk(plan, idField: storage.idField)
    }

    /// At most `count` matches after `position` (from the start when `nil`), in order.
    func batch<Item>(
        after position: ScanPosition?, count: Int,
        in transaction: borrowing some ReadableTransaction & ~Copyable,
        materialize: Materialize<Item>
    ) throws -> ScanBatch<Item> {
        var lookups = 0
        defer { storage.noteRecordLookups(lookups) }
        let (storage, plan) = (storage, walk.plan)
        return try walk.batch(
            after: position, count: count,
            walk: { window, definition, visit in
                guard let definition else {
                    try window.visitEntries(storage.records, in: transaction) { key, record in
                        try visit(key, key, RecordVersion.body(record)) { try RecordVersion.read(record) }
                    }
                    return
                }
                guard let index = storage.indexes.first(where: { $0.definition == definition }) else {
                    throw DataStoreError(.schemaMismatch, "index \(definition.name) of \(storage.name) is gone")
                }
                try window.visitEntries(index.database, in: transaction) { key, value in
                    guard let idKey = StorageKeys.idKey(inIndexKey: key) else { return true }
                    return try storage.withRecord(
                        ofEntry: value, idKey: idKey, in: index, transaction: transaction, lookups: &lookups
                    ) { record in
                        try visit(key, idKey, RecordVersion.body(record)) { try RecordVersion.read(record) }
                    } ?? true
                }
            },
            lookUp: { try QueryExecutor(storage: storage, plan: plan).run(in: transaction, materialize: materialize) },
            materialize: materialize)
    }
}
