public import DataStoreCore

extension StoreCollection {
    /// A query of the shape `params` and `options` give, parsed once, run with the values of its
    /// parameters bound on each call (see ``PreparedQuery``).
    ///
    /// ```swift
    /// let conversation = try messages.prepareQuery(params: [
    ///     "from_user_key": .parameter(.string), "to_user_key": .parameter(.string),
    /// ])
    /// let found = try await conversation.run(["from_user_key": "12", "to_user_key": "34"])
    /// ```
    ///
    /// - Parameters:
    ///   - params: The seed's parameter keys (`"field"` or `"field OP"`), each mapped to a fixed
    ///     `.value` or to a `.parameter` of the kind its runs bind.
    ///   - options: `limit`, `offset` and `sort`, fixed for every run.
    /// - Throws: ``/DataStoreCore/DataStoreError`` `.invalidQuery` naming the key, as
    ///   `query(params:options:)` does, and for a parameter of a kind its operator cannot take
    ///   (`in` takes an array, `^=` a string, `exists` a bool, a range operator no array);
    ///   `.invalidOption` naming the option.
    public func prepareQuery(params: [String: QueryParameter], options: [String: Value]? = nil) throws
        -> PreparedQuery<Object>
    {
        PreparedQuery(collection: self, template: try QueryTemplate(params: params, options: options))
    }
}
