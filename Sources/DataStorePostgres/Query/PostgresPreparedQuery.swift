public import DataStoreCore
public import DataStoreEngine

/// A query of one shape, parsed once, whose parameter values are bound on each run, as the LMDB
/// store's `PreparedQuery` is: a run skips parsing and sorting the dictionary's keys, and answers
/// exactly as ``PostgresCollection/query(params:options:)`` answers the same dictionary with the
/// values written in. Its statements are the server's prepared statements the collection's
/// queries share. A value that can be shared between tasks.
public struct PostgresPreparedQuery<Object>: Sendable {
    /// The collection the query reads.
    public let collection: PostgresCollection<Object>
    private let template: QueryTemplate

    init(collection: PostgresCollection<Object>, template: QueryTemplate) {
        self.collection = collection
        self.template = template
    }

    /// The parameter keys, each bound on every run, in UTF-8 byte order.
    public var parameters: [String] { template.parameterKeys }

    /// The objects matching the query with `values` bound, keyed as the parameters were declared.
    ///
    /// - Throws: ``/DataStoreCore/DataStoreError`` `.invalidQuery` naming a key that is not a
    ///   parameter, a parameter without a value or one whose value is not of its kind; `.codec`,
    ///   `.network`.
    public func run(_ values: [String: Value] = [:]) async throws -> [Object] {
        try await collection.query(try template.bind(values))
    }

    /// `run(_:)` on the caller's thread, which waits for the server.
    ///
    /// - Throws: As the async form.
    public func run(_ values: [String: Value] = [:]) throws -> [Object] {
        try collection.query(try template.bind(values))
    }

    /// The query `values` make: what `PostgresCollection.query(_:)` runs for them.
    ///
    /// - Throws: As `run(_:)` for the values.
    public func query(_ values: [String: Value] = [:]) throws -> Query {
        try template.bind(values)
    }

    /// How the store would answer the query with `values` bound, without running it.
    ///
    /// - Throws: As `run(_:)` for the values.
    public func explain(_ values: [String: Value] = [:]) throws -> QueryPlan {
        collection.layout.plan(try template.bind(values))
    }
}

extension PostgresPreparedQuery: PreparedDocumentQuery {}

extension PostgresCollection {
    /// A query of the shape `params` and `options` give, parsed once, run with the values of its
    /// parameters bound on each call (see ``PostgresPreparedQuery``).
    ///
    /// ```swift
    /// let conversation = try messages.prepareQuery(params: [
    ///     "from_user_key": .parameter(.string), "to_user_key": .parameter(.string),
    /// ])
    /// let found = try await conversation.run(["from_user_key": "12", "to_user_key": "34"])
    /// ```
    ///
    /// - Throws: ``/DataStoreCore/DataStoreError`` `.invalidQuery` naming the key, as
    ///   `query(params:options:)` does, and for a parameter of a kind its operator cannot take;
    ///   `.invalidOption` naming the option.
    public func prepareQuery(params: [String: QueryParameter], options: [String: Value]? = nil) throws
        -> PostgresPreparedQuery<Object>
    {
        PostgresPreparedQuery(collection: self, template: try QueryTemplate(params: params, options: options))
    }
}
