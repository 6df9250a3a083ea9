public import DataStoreCore
public import DataStoreEngine
import Synchronization

/// The PostgreSQL store under the contract every store keeps (``/DataStoreEngine/DocumentStore``).
extension PostgresStore: DocumentStore {
    /// The server's URL, without its password (the `PG*` variables' server for `""`).
    public var location: String { url.isEmpty ? "the server the PG* variables name" : Connection.withoutPassword(url) }

    /// PostgreSQL keeps its own pages: `.unsupported`, naming what repacks a table there.
    public func compact(collection name: String) async throws {
        throw DataStoreError(
            .unsupported,
            "a PostgreSQL store has no compact: the server repacks a table with VACUUM FULL "
                + "(its table is named in _meta), or reuses its space after VACUUM")
    }

    /// What the store holds, and the server's version, database and change feed
    /// (``statistics()`` in the contract's shape).
    public func report() throws -> StoreReport {
        let statistics = try statistics()
        let facts: [StoreReport.Fact] = [
            .init(key: "url", label: "store", value: .string(location)),
            .init(
                key: "serverVersion", label: "server", value: .string(statistics.serverVersion),
                text: "PostgreSQL \(statistics.serverVersion), database \(statistics.database)"),
            .init(key: "database", label: nil, value: .string(statistics.database)),
            .init(
                key: "lastCommit", label: "last commit", value: .int(Int64(statistics.lastCommit)),
                text: "transaction \(statistics.lastCommit)"),
            .init(
                key: "retainedCommits", label: "change feed", value: .int(Int64(statistics.retainedCommits)),
                text: "\(statistics.retainedCommits) commits kept")
        ]
        return StoreReport(
            facts: facts,
            collections: statistics.collections.map { collection in
                CollectionStatistics(
                    name: collection.name, idField: collection.idField, documents: collection.documents,
                    bytes: collection.bytes,
                    indexes: collection.indexes.map {
                        IndexStatistics(
                            definition: $0.definition, state: "ready", declared: $0.declared, entries: $0.entries,
                            bytes: $0.bytes)
                    }, details: ["table": .string(collection.table)])
            })
    }

    /// ``addIndex(_:to:buildChunk:)``: the build is one transaction on the server, which shows
    /// nothing until it commits, so `progress` is not called.
    public func addIndex(
        _ definition: IndexDefinition, to name: String, buildChunk: Int,
        progress: @escaping @Sendable (_ entries: Int) -> Void
    ) async throws {
        try await addIndex(definition, to: name, buildChunk: buildChunk)
    }

    /// Commits are durable once the server acknowledges them: nothing to do.
    public func sync() throws {}

    /// `.unsupported`: PostgreSQL's own tools copy a database.
    public func backup(to destination: String, compact: Bool) throws {
        throw DataStoreError(
            .unsupported,
            "a PostgreSQL store is copied with PostgreSQL's own tools (pg_dump, or pg_basebackup for the whole server), "
                + "or moved with datastore export and import")
    }

    public func _collection<Object>(
        _ name: String, mapping: ObjectMapping<Object>, indexes: [IndexDefinition], indexBuildChunk: Int,
        undeclaredIndexes: UndeclaredIndexes
    ) async throws -> any DocumentCollection<Object> {
        try await collection(
            name, mapping: mapping, indexes: indexes, indexBuildChunk: indexBuildChunk,
            undeclaredIndexes: undeclaredIndexes) as PostgresCollection<Object>
    }

    public func _documentCollection(_ name: String) async throws -> any DocumentCollection<Document> {
        try await documentCollection(name) as PostgresCollection<Document>
    }

    public func _newContext(policy: ConflictPolicy) -> any UnitOfWork { newContext(policy: policy) as PostgresContext }
}

extension PostgresCollection: DocumentCollection {
    /// Verifies this collection's rows, index entries and `jsonb` renderings (``PostgresStore/check()``).
    public func check() throws -> [IntegrityProblem] { try store.check(collections: [name]) }

    /// The stored document under `id` — fields the mapping does not name included — or `nil`.
    /// - Throws: ``/DataStoreCore/DataStoreError`` `.invalidID`, `.codec`, `.network`.
    public func document(id: Value) async throws -> Document? {
        let (key, layout) = (try layout.idKey(id), layout)
        return try await store.readers.run {
            try self.store.pool.read("reading \(layout.name)") { connection -> Document? in
                let result = try connection.executePrepared(layout.recordByID, [.bytes(key)])
                guard result.rowCount == 1, let record = result.bytes(0, 0) else { return nil }
                do { return try RecordCodec.decode(record) } catch {
                    throw DataStoreError(
                        .codec, "the record \(id) in \(layout.name) cannot be decoded", underlying: error)
                }
            }
        }
    }

}

/// A context under the contract every unit of work keeps (``/DataStoreEngine/UnitOfWork``): the same calls, taking
/// any collection of this store.
extension PostgresContext: UnitOfWork {
    public func get<Object>(id: Value, from collection: any DocumentCollection<Object>) throws -> Object {
        try get(id: id, from: own(collection))
    }

    public func query<Object>(
        _ collection: any DocumentCollection<Object>, params: [String: Value]?, options: [String: Value]?
    ) throws -> [Object] {
        try query(own(collection), params: params, options: options)
    }

    public func add<Object>(_ object: Object, to collection: any DocumentCollection<Object>) throws -> Object {
        try add(object, to: own(collection))
    }

    public func put<Object>(id: Value, object: Object, in collection: any DocumentCollection<Object>) throws -> Object {
        try put(id: id, object: object, in: own(collection))
    }

    public func remove<Object>(id: Value, from collection: any DocumentCollection<Object>) throws -> Object {
        try remove(id: id, from: own(collection))
    }

    public func update<Object>(id: Value, _ update: FieldUpdate, in collection: any DocumentCollection<Object>) throws
        -> Object
    {
        try self.update(id: id, update, in: own(collection))
    }

    public func remove<Object>(params: [String: Value]?, from collection: any DocumentCollection<Object>) throws -> Int
    {
        try remove(params: params, from: own(collection))
    }

    public func _newChild() -> any UnitOfWork { newChild() as PostgresContext }

    /// `collection` as this store's own.
    private func own<Object>(_ collection: any DocumentCollection<Object>) throws(DataStoreError)
        -> PostgresCollection<Object>
    {
        guard let own = collection as? PostgresCollection<Object>, own.store === store else {
            throw foreignCollection(collection.name, store: store.location)
        }
        return own
    }
}

extension PostgresSnapshot: DocumentSnapshot {}

extension PostgresStore {
    /// Runs `body` inside the writer's transaction, under a savepoint of its own in a batch with
    /// other saves, and returns what it returns once that has committed
    /// (``/DataStoreEngine/DocumentStore/write(_:)``). Each `get` in it locks its row until the
    /// commit; a deadlock or serialization failure runs `body` again.
    public func write<R: Sendable>(_ body: @escaping @Sendable (any DocumentTransaction) throws -> R) async throws
        -> R
    {
        let result = ResultBox<R>()
        _ = try await writer.transaction { [self] session in
            let value = try PostgresTransaction.run(body, store: self, session: session)
            result.value.withLock { $0 = value }
        }
        guard let value = result.value.withLock({ $0 }) else {
            throw DataStoreError(.storage, "a write transaction committed without its result")
        }
        return value
    }
}

/// What the last run of a `write { }` closure returned.
private final class ResultBox<R: Sendable>: Sendable {
    let value = Mutex<R?>(nil)
}
