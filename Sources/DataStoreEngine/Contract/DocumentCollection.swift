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
    /// The snapshot ``read(batchSize:_:)`` lends its closure.
    associatedtype Snapshot: DocumentSnapshot<Object>
    /// The sequence ``stream(params:options:pageSize:)`` returns.
    associatedtype Stream: AsyncSequence<Object, any Error>
    /// The query ``prepareQuery(params:options:)`` returns.
    associatedtype Prepared: PreparedDocumentQuery<Object>

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
    /// - Throws: ``/DataStoreCore/DataStoreError`` `.invalidOption`, `.invalidPageToken`.
    func page(params: [String: Value]?, options: [String: Value]?, size: Int, after token: PageToken?) async throws
        -> Page<Object>

    /// The results of a query as an `AsyncSequence` that reads a page of `pageSize` at a time,
    /// each page from a snapshot of its own, so a walk of millions of results holds one page.
    /// - Throws: ``/DataStoreCore/DataStoreError`` `.invalidQuery`, `.invalidOption` (a sort no index serves).
    func stream(params: [String: Value]?, options: [String: Value]?, pageSize: Int) throws -> Stream

    /// Runs `body` over one snapshot of the collection, whose cursors read `batchSize` results at
    /// a time; the snapshot ends when `body` returns.
    /// - Throws: What `body` throws, or the first error a cursor's `for`-`in` loop met.
    func read<R>(batchSize: Int, _ body: (Snapshot) throws -> R) throws -> R

    /// A query of the shape `params` and `options` give, parsed once, run with the values of its
    /// `.parameter`s bound on each call.
    /// - Throws: ``/DataStoreCore/DataStoreError`` `.invalidQuery` naming the key, `.invalidOption`.
    func prepareQuery(params: [String: QueryParameter], options: [String: Value]?) throws -> Prepared

    /// The live results of a query: the current results, then new results after each commit that
    /// may have changed them (docs/changes.md).
    func observe(params: [String: Value]?, options: [String: Value]?) throws -> QueryObservation<Object>

    /// Verifies this collection's records and index entries.
    func check() throws -> [IntegrityProblem]
}

extension DocumentCollection {
    /// ``stream(params:options:pageSize:)`` a thousand results at a time.
    public func stream(params: [String: Value]?, options: [String: Value]? = nil) throws -> Stream {
        try stream(params: params, options: options, pageSize: 1_000)
    }

    /// ``read(batchSize:_:)`` whose cursors read 256 results at a time.
    public func read<R>(_ body: (Snapshot) throws -> R) throws -> R {
        try read(batchSize: 256, body)
    }
}
