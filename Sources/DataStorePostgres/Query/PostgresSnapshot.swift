public import DataStoreCore
import DataStoreEngine

/// One collection read over one snapshot of the server, for the duration of
/// ``PostgresCollection/read(batchSize:_:)``: every call sees the same commit (a `REPEATABLE
/// READ` transaction on one connection), and `query(params:options:)` returns a lazy
/// ``PostgresCursor`` that walks millions of results in the memory of one batch.
///
/// The transaction ends when the closure returns. Keep the closure short: while it is open the
/// server keeps the row versions it sees (as LMDB keeps its pages). A walk that may take long
/// belongs in ``PostgresCollection/stream(params:options:pageSize:)``, whose pages each read their
/// own snapshot.
public final class PostgresSnapshot<Object> {
    /// The collection read.
    public let collection: PostgresCollection<Object>
    let connection: SnapshotConnection
    /// How many results a cursor reads at a time.
    let batchSize: Int

    init(collection: PostgresCollection<Object>, connection: SnapshotConnection, batchSize: Int) {
        self.collection = collection
        self.connection = connection
        self.batchSize = batchSize
    }

    /// The objects matching `params`, shaped by `options` (docs/queries.md), read lazily: the order
    /// is `sort`'s (ties by id), or the plan's without one; `offset` and `limit` apply.
    ///
    /// - Throws: ``/DataStoreCore/DataStoreError`` `.invalidQuery`, `.invalidOption` naming the key; `.invalidOption`
    ///   for a sort that no index serves (it would need every match in memory: use
    ///   ``PostgresCollection/query(params:options:)``).
    public func query(params: [String: Value]?, options: [String: Value]? = nil) throws -> PostgresCursor<Object> {
        let collection = collection
        return try cursor(Query(params: params, options: options)) { body, _ in try collection.decode(body, id: nil) }
    }

    /// The stored documents matching `params`, read lazily as `query(params:options:)` reads objects.
    public func documents(params: [String: Value]?, options: [String: Value]? = nil) throws
        -> PostgresCursor<Document>
    {
        let name = collection.name
        return try cursor(Query(params: params, options: options)) { body, _ in
            do { return try RecordCodec.decode(body) } catch {
                throw DataStoreError(.codec, "a record in \(name) cannot be decoded", underlying: error)
            }
        }
    }

    /// The number of objects matching `params` in this snapshot.
    public func count(params: [String: Value]?) throws -> Int {
        let layout = collection.layout
        let runner = try PostgresQueryRunner(
            layout: layout, plan: layout.plan(Query(conditions: try Query(params: params, options: nil).conditions)),
            versions: false)
        return try connection.use { connection in
            try runner.run(on: connection, idOrder: false) { _, _ in () }?.count ?? 0
        }
    }

    /// The object stored under `id` in this snapshot.
    /// - Throws: ``/DataStoreCore/DataStoreError`` `.notFound` naming the id.
    public func get(id: Value) throws -> Object {
        let layout = collection.layout
        let key = try layout.idKey(id)
        let object = try connection.use { connection -> Object? in
            let result = try connection.executePrepared(layout.recordByID, [.bytes(key)])
            guard result.rowCount == 1 else { return nil }
            return try collection.decode(result.unsafeBytes(0, 0), id: id)
        }
        guard let object else { throw DataStoreError(.notFound, "no object with id \(id) in \(collection.name)") }
        return object
    }

    private func cursor<Element>(
        _ query: Query, _ materialize: @escaping ResumableWalk.Materialize<Element>
    ) throws -> PostgresCursor<Element> {
        let walker = try collection.walker(for: query)
        return PostgresCursor(
            snapshot: connection, walker: walker, query: query, batchSize: batchSize, materialize: materialize)
    }
}
