public import DataStoreCore

/// A collection of objects in a store, whichever backend keeps it: the LMDB store's
/// `StoreCollection` and the PostgreSQL store's `PostgresCollection` conform, with the same
/// meaning behind each call (docs/postgres.md). Code written against it runs on either.
///
/// The protocol is closed: the package's stores conform to it, and its meaning is theirs; do not
/// declare new conformances (`ModelProtocol` is the protocol to adopt for a model of your own).
///
/// ```swift
/// func recent(_ messages: some DocumentCollection<Message>) async throws -> [Message] {
///     try await messages.query(params: ["created_ts >=": 1437108600], options: ["limit": 20])
/// }
/// ```
public protocol DocumentCollection<Object>: ModelProtocol, Sendable {
    /// The collection's name.
    var name: String { get }
    /// How objects become documents and back; its `idField` names the field holding each id.
    var mapping: ObjectMapping<Object> { get }
    /// The secondary indexes, complete or being built.
    var indexes: [IndexDefinition] { get }
    /// The stored indexes the application's last declaration left out (kept until dropped).
    var undeclaredIndexes: [IndexDefinition] { get }

    /// The objects matching a parsed query, in its order, within its limit and offset.
    /// - Throws: ``/DataStoreCore/DataStoreError`` `.codec`, `.network`, `.timedOut`.
    func query(_ query: Query) async throws -> [Object]
    /// How many objects match a parsed query's conditions (its limit, offset and sort ignored).
    func count(_ query: Query) async throws -> Int
    /// The stored document under `id` as stored — fields the mapping does not name included — or
    /// `nil` when there is none.
    func document(id: Value) async throws -> Document?
    /// The plan the store would follow for the query, as text and structure.
    /// - Throws: ``/DataStoreCore/DataStoreError`` `.invalidQuery`, `.invalidOption`.
    func explain(params: [String: Value]?, options: [String: Value]?) throws -> QueryPlan

    /// Adds every object as one change set: all of them, or none.
    /// - Returns: The ids, in order (generated for objects without one).
    func add(contentsOf objects: [Object]) async throws -> [Value]
    /// Stores every object under its id as one change set, replacing what was there.
    func put(contentsOf objects: [Object]) async throws -> [Value]
    /// Removes every object matching the query's conditions in one change set; returns how many.
    func remove(_ query: Query) async throws -> Int

    /// One page of `size` results after `token` (from the start when `nil`): pagination that
    /// seeks to where the last page ended instead of skipping rows. The sort, if any, must be
    /// served by an index; `limit` and `offset` do not apply.
    /// - Throws: ``/DataStoreCore/DataStoreError`` `.invalidOption`, `.invalidPageToken`;
    ///   `.unsupported` where the backend does not page yet (the message names what to use).
    func page(params: [String: Value]?, options: [String: Value]?, size: Int, after token: PageToken?) async throws
        -> Page<Object>

    /// The live results of a query: the current results, then new results after each commit that
    /// may have changed them (docs/changes.md).
    func observe(params: [String: Value]?, options: [String: Value]?) throws -> QueryObservation<Object>

    /// Verifies this collection's records and index entries.
    func check() throws -> [IntegrityProblem]
}
