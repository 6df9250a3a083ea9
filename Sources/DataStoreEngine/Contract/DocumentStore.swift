public import DataStoreCore

/// A store, whichever backend keeps it: the LMDB store (`DataStore`) and the PostgreSQL store
/// (`PostgresStore`) conform, so an application's storage layer written against it moves from a
/// directory to a server by changing how the store is opened.
///
/// The protocol is closed: do not declare new conformances. Requirements whose names begin with
/// an underscore are the stores' own; call the forms without it.
///
/// ```swift
/// func messages(in store: some DocumentStore) async throws -> any DocumentCollection<Message> {
///     try await store.collection(Message.self, indexes: [IndexDefinition("created_ts")])
/// }
/// ```
public protocol DocumentStore: AnyObject, Sendable {
    /// Where the store is: a directory's path, or a server's URL (without its password).
    var location: String { get }

    /// The names of the stored collections.
    func collectionNames() throws -> [String]
    /// Adds an index to a stored collection and builds it from its documents.
    /// - Throws: ``/DataStoreCore/DataStoreError`` `.notFound`, `.schemaMismatch`, `.uniqueViolation`.
    func addIndex(_ definition: IndexDefinition, to name: String, buildChunk: Int) async throws
    /// ``addIndex(_:to:buildChunk:)``, telling `progress` how many entries the build has made as it
    /// goes, where the backend can tell: an LMDB store's build commits as it goes, a server's is
    /// one transaction, which shows nothing until it commits (`progress` is then not called).
    func addIndex(
        _ definition: IndexDefinition, to name: String, buildChunk: Int,
        progress: @escaping @Sendable (_ entries: Int) -> Void
    ) async throws
    /// Drops an index of a stored collection, with its data, and returns its definition.
    func dropIndex(named indexName: String, from name: String) async throws -> IndexDefinition
    /// The durable change feed after `commit` (from the oldest kept when `nil`).
    /// - Throws: ``/DataStoreCore/DataStoreError`` `.changesTrimmed`, `.unsupported` with the feed off.
    func changes(after commit: CommitID?) throws -> ChangeFeed
    /// The position the feed consumer `consumer` saved (``saveFeedPosition(_:of:)``, or
    /// ``DocumentTransaction/saveFeedPosition(_:of:)``), or `nil` when it saved none.
    /// - Throws: ``/DataStoreCore/DataStoreError`` `.invalidValue` for a name that is empty, over
    ///   200 bytes or holds NUL.
    func feedPosition(of consumer: String) throws -> CommitID?
    /// Saves `commit` as the position of the feed consumer `consumer`, in the store, in a commit of
    /// its own. A consumer that writes to this store saves it in the same ``write(_:)`` as its
    /// writes instead, so that both land or neither (docs/changes.md).
    func saveFeedPosition(_ commit: CommitID, of consumer: String) async throws
    /// Verifies every collection's records and index entries.
    func check() throws -> [IntegrityProblem]
    /// What the store holds, and the facts of its backend (`datastore stats`).
    func report() throws -> StoreReport
    /// Makes durable what was committed without a sync of its own (an LMDB store opened with
    /// relaxed durability); a store whose commits are durable when acknowledged does nothing.
    func sync() throws
    /// Copies the store, consistently while in use, into the empty directory `destination`, where
    /// the backend can; otherwise `.unsupported` naming the backend's own tool.
    func backup(to destination: String, compact: Bool) throws
    /// Rewrites a collection's records and indexes into full pages, where the backend has such a
    /// thing; otherwise `.unsupported` naming what does it there.
    func compact(collection name: String) async throws
    /// Stops writing once what is queued has committed, and closes the store.
    func close()

    /// Runs `body` inside the writer's transaction and returns what it returns once that has
    /// committed: a read-modify-write with no conflict possible (docs/contention.md).
    ///
    /// `body` reads the latest committed state plus its own writes through its
    /// ``DocumentTransaction``, and its writes across collections commit together or not at all. The
    /// writer batches it with other saves, each isolated: one that throws is rolled back alone,
    /// and its error is thrown here. `body` must not suspend (it is synchronous) and must not keep
    /// the transaction. The store may run it more than once before it commits (after another
    /// change set of its batch failed, or after a PostgreSQL serialization failure or deadlock),
    /// so it must do nothing but read and write through the transaction: anything else it
    /// computes belongs in its result.
    /// - Throws: What `body` throws, or the first error of a write in it (nothing written);
    ///   ``/DataStoreCore/DataStoreError`` `.outcomeUnknown` when the commit's fate could not be
    ///   learned; `.closed`, `.storage`, `.network`, `.timedOut` as for any save.
    func write<R: Sendable>(_ body: @escaping @Sendable (any DocumentTransaction) throws -> R) async throws -> R

    /// The names of the migrations the store has recorded as run (``Migrator``), in name order.
    func appliedMigrations() throws -> [String]
    /// Runs `migration`'s steps and records its name, in one transaction (call
    /// ``Migrator/migrate(_:)``).
    func _apply(_ migration: Migration) async throws

    /// The collection `name`, its objects stored through `mapping`, declared with `indexes`
    /// (call ``collection(_:mapping:indexes:indexBuildChunk:undeclaredIndexes:)``).
    func _collection<Object>(
        _ name: String, mapping: ObjectMapping<Object>, indexes: [IndexDefinition], indexBuildChunk: Int,
        undeclaredIndexes: UndeclaredIndexes
    ) async throws -> any DocumentCollection<Object>
    /// The stored collection `name` as documents (call ``documentCollection(_:)``).
    func _documentCollection(_ name: String) async throws -> any DocumentCollection<Document>
    /// A new root unit of work (call ``newContext(policy:)``).
    func _newContext(policy: ConflictPolicy) -> any UnitOfWork
}

extension DocumentStore {
    /// The collection `name`, its objects stored through `mapping`, declared with `indexes`:
    /// created when new, its stored indexes reconciled with the declaration (new ones built before
    /// this returns; one left out kept unless `undeclaredIndexes` is `.drop`).
    /// - Throws: ``/DataStoreCore/DataStoreError`` `.schemaMismatch` for a bad declaration or another
    ///   id field; `.uniqueViolation` when stored documents break a new unique index.
    public func collection<Object>(
        _ name: String, mapping: ObjectMapping<Object>, indexes: [IndexDefinition] = [], indexBuildChunk: Int = 1_000,
        undeclaredIndexes: UndeclaredIndexes = .keep
    ) async throws -> any DocumentCollection<Object> {
        try await _collection(
            name, mapping: mapping, indexes: indexes, indexBuildChunk: indexBuildChunk,
            undeclaredIndexes: undeclaredIndexes)
    }

    /// The collection of an ``/DataStoreCore/ObjectCoder`` class, named after the class unless `name` is given.
    public func collection<Object: ObjectCoder & SendableMetatype>(
        _ type: Object.Type, name: String? = nil, indexes: [IndexDefinition] = [],
        undeclaredIndexes: UndeclaredIndexes = .keep
    ) async throws -> any DocumentCollection<Object> {
        try await collection(
            name ?? String(describing: type), mapping: .objectCoder, indexes: indexes,
            undeclaredIndexes: undeclaredIndexes)
    }

    /// The collection of a `Codable` type whose identifier is the property `idField`.
    public func collection<Object: Codable & SendableMetatype>(
        _ type: Object.Type, name: String? = nil, idField: String, indexes: [IndexDefinition] = [],
        undeclaredIndexes: UndeclaredIndexes = .keep
    ) async throws -> any DocumentCollection<Object> {
        try await collection(
            name ?? String(describing: type), mapping: .codable(idField: idField), indexes: indexes,
            undeclaredIndexes: undeclaredIndexes)
    }

    /// The stored collection `name` as documents, with the id field and indexes it was stored with.
    /// - Throws: ``/DataStoreCore/DataStoreError`` `.notFound` naming the collection.
    public func documentCollection(_ name: String) async throws -> any DocumentCollection<Document> {
        try await _documentCollection(name)
    }

    /// A new root unit of work over this store (``UnitOfWork``).
    public func newContext(policy: ConflictPolicy = .detect) -> any UnitOfWork {
        _newContext(policy: policy)
    }
}
