import DataStoreCore
public import DataStoreEngine

extension PostgresStore {
    /// The consumer `consumer`'s saved position (``/DataStoreEngine/DocumentStore/feedPosition(of:)``).
    public func feedPosition(of consumer: String) throws -> CommitID? {
        try FeedConsumerName.check(consumer)
        return try pool.read("reading the feed position of \(consumer)") { connection in
            try FeedPositionTable.position(of: consumer, on: connection)
        }
    }

    /// Saves the consumer `consumer`'s position in a commit of its own
    /// (``/DataStoreEngine/DocumentStore/saveFeedPosition(_:of:)``).
    public func saveFeedPosition(_ commit: CommitID, of consumer: String) async throws {
        try FeedConsumerName.check(consumer)
        _ = try await writer.recorded { connection in
            try FeedPositionTable.save(commit, of: consumer, on: connection)
            return []
        }
    }
}
