public import DataStoreCore

extension StoreCollection {
    /// The live results of a query: the current results first, then new results after each
    /// durable commit that touched this collection, made in this process or another
    /// (docs/changes.md). Observers cost the writer nothing; commits that touch only other
    /// collections cost an observer nothing.
    ///
    /// ```swift
    /// for try await unread in try messages.observe(params: ["read": false], options: ["sort": "-created_ts"]) {
    ///     badge.count = unread.count
    /// }
    /// ```
    ///
    /// - Throws: ``/DataStoreCore/DataStoreError`` `.invalidQuery` or `.invalidOption` for a malformed query, at once.
    public func observe(params: [String: Value]?, options: [String: Value]?) throws -> QueryObservation<Object> {
        QueryObservation(collection: self, query: try Query(params: params, options: options))
    }
}
