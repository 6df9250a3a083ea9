public import DataStoreCore
import DataStoreEngine

/// One collection read over one snapshot, for the duration of `StoreCollection/read(_:)`:
/// every call sees the same commit, and `query(params:options:)` returns a lazy
/// ``QueryCursor`` that walks millions of results in the memory of one batch.
///
/// The snapshot is a registered read transaction (statistics show it), ended when the closure
/// returns. Keep the closure short: while it is open, the pages it sees cannot be reused. When
/// the writer must grow the map, or the snapshot passes `DataStore.Options.maxSnapshotAge`, the
/// snapshot yields between batches and the next read throws ``/DataStoreCore/DataStoreError/Code/snapshotExpired``:
/// a walk that may take long belongs in ``StoreCollection/stream(params:options:pageSize:)``,
/// whose pages each read their own short snapshot.
public final class CollectionSnapshot<Object> {
    /// The collection read.
    public let collection: StoreCollection<Object>
    let holder: SnapshotHolder
    /// How many results a cursor reads at a time.
    let batchSize: Int

    init(collection: StoreCollection<Object>, holder: SnapshotHolder, batchSize: Int) {
        self.collection = collection
        self.holder = holder
        self.batchSize = batchSize
    }

    /// The id of the commit this snapshot sees.
    public var commit: Int { holder.commit }

    /// The objects matching `params`, shaped by `options` (docs/queries.md), read lazily: the order
    /// is `sort`'s (ties by id), or the plan's without one; `offset` and `limit` apply.
    ///
    /// - Throws: ``/DataStoreCore/DataStoreError`` `.invalidQuery`, `.invalidOption` naming the key; `.invalidOption`
    ///   for a sort that no index serves (it would need every match in memory: use
    ///   `StoreCollection.query(params:options:)`).
    public func query(params: [String: Value]?, options: [String: Value]? = nil) throws -> QueryCursor<Object> {
        let collection = self.collection
        return try cursor(Query(params: params, options: options)) { body, _ in try collection.decode(body, id: nil) }
    }

    /// The stored documents matching `params`, read lazily as `query(params:options:)` reads objects.
    public func documents(params: [String: Value]?, options: [String: Value]? = nil) throws -> QueryCursor<Document> {
        try cursor(Query(params: params, options: options)) { body, _ in try RecordCodec.decode(body) }
    }

    /// The number of objects matching `params` in this snapshot (see `StoreCollection.count(params:)`).
    public func count(params: [String: Value]?) throws -> Int {
        let plan = collection.plan(for: try Query(params: params, options: nil))
        let storage = collection.storage
        return try holder.withTransaction { try QueryCounter(storage: storage, plan: plan).count(in: $0).count }
    }

    /// The object stored under `id` in this snapshot.
    /// - Throws: ``/DataStoreCore/DataStoreError`` `.notFound` naming the id.
    public func get(id: Value) throws -> Object {
        let storage = collection.storage
        let key = try storage.idKey(id)
        let object = try holder.withTransaction { transaction in
            try transaction.withValue(forKey: key, in: storage.records) { record in
                try collection.decode(RecordVersion.body(record), id: id)
            }
        }
        guard let object else { throw DataStoreError(.notFound, "no object with id \(id) in \(collection.name)") }
        return object
    }

    private func cursor<Element>(
        _ query: Query, _ materialize: @escaping ResumableScan.Materialize<Element>
    ) throws -> QueryCursor<Element> {
        let scan = try collection.resumableScan(query)
        return QueryCursor(holder: holder, scan: scan, query: query, batchSize: batchSize, materialize: materialize)
    }
}
