public import DataStoreCore

/// One collection read over one snapshot, for the duration of a `read` closure
/// (``DocumentCollection/read(batchSize:_:)``): every call sees the same commit, and
/// `query(params:options:)` returns a lazy cursor that walks millions of results in the memory of
/// one batch. The LMDB store's `CollectionSnapshot` and the PostgreSQL store's `PostgresSnapshot`
/// conform. The protocol is closed, as ``DocumentCollection`` is.
///
/// ```swift
/// func totalLength(_ messages: some DocumentCollection<Message>) throws -> Int {
///     try messages.read { snapshot in
///         var total = 0
///         for message in try snapshot.query(params: ["created_ts >=": 1437108600], options: nil) {
///             total += message.message?.count ?? 0
///         }
///         return total
///     }
/// }
/// ```
public protocol DocumentSnapshot<Object> {
    associatedtype Object
    /// The lazy results of ``query(params:options:)``.
    associatedtype Cursor: Sequence<Object>
    /// The lazy results of ``documents(params:options:)``.
    associatedtype DocumentCursor: Sequence<Document>

    /// The objects matching `params`, shaped by `options`, read lazily: the order is `sort`'s
    /// (ties by id), or the plan's without one; `offset` and `limit` apply. A `for`-`in` loop that
    /// meets an error ends, and the `read` call throws it.
    /// - Throws: ``/DataStoreCore/DataStoreError`` `.invalidQuery`, `.invalidOption` (a sort no index serves).
    func query(params: [String: Value]?, options: [String: Value]?) throws -> Cursor
    /// The stored documents matching `params`, read lazily as ``query(params:options:)`` reads objects.
    func documents(params: [String: Value]?, options: [String: Value]?) throws -> DocumentCursor
    /// The number of objects matching `params` in this snapshot.
    func count(params: [String: Value]?) throws -> Int
    /// The object stored under `id` in this snapshot.
    /// - Throws: ``/DataStoreCore/DataStoreError`` `.notFound` naming the id.
    func get(id: Value) throws -> Object
}

/// A query of one shape, parsed once, whose `.parameter` values are bound on each run (as a
/// prepared statement is for SQL): the LMDB store's `PreparedQuery` and the PostgreSQL store's
/// `PostgresPreparedQuery` conform. A run answers exactly as the collection's query answers the
/// same dictionary with the values written in.
public protocol PreparedDocumentQuery<Object>: Sendable {
    associatedtype Object
    /// The parameter keys, each bound on every run, in UTF-8 byte order.
    var parameters: [String] { get }
    /// The objects matching the query with `values` bound, keyed as the parameters were declared.
    /// - Throws: ``/DataStoreCore/DataStoreError`` `.invalidQuery` naming a key that is not a
    ///   parameter, a parameter without a value or one whose value is not of its kind.
    func run(_ values: [String: Value]) async throws -> [Object]
    /// The query `values` make.
    func query(_ values: [String: Value]) throws -> Query
    /// How the store would answer the query with `values` bound, without running it.
    func explain(_ values: [String: Value]) throws -> QueryPlan
}
