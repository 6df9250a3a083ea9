public import DataStoreEngine

extension DataStore {
    /// Runs `body` inside the writer's LMDB write transaction, batched with other saves, and
    /// returns what it returns once that has committed (``/DataStoreEngine/DocumentStore/write(_:)``).
    ///
    /// A short one from an idle store commits on the calling thread, as a lone save does.
    public func write<R: Sendable>(_ body: @escaping @Sendable (any DocumentTransaction) throws -> R) async throws
        -> R
    {
        let (result, _) = try await writer.submit(estimatedBytes: 1_024, mayCommitOnCaller: true) {
            [self] transaction in
            try StoreTransaction.run(body, store: self, in: &transaction)
        }
        return result
    }
}
