public import DataStoreCore

/// What one committed write transaction changed, for observers.
public struct CommitEvent: Sendable, Hashable {
    /// The commit, in commit order.
    public let commit: CommitID
    /// The changes, one entry per collection touched.
    public let changes: [CollectionChanges]
}

/// The ids one commit inserted, updated and removed in one collection.
public struct CollectionChanges: Sendable, Hashable {
    /// The collection's name.
    public var collection: String
    /// Ids stored that were absent before.
    public var inserted: [Value] = []
    /// Ids whose stored object was replaced.
    public var updated: [Value] = []
    /// Ids removed.
    public var removed: [Value] = []

    /// Empty changes for `collection`.
    public init(collection: String) { self.collection = collection }
}

extension DataStore {
    /// Every commit from now on, in commit order, with the ids it inserted, updated and removed.
    /// The stream ends when the store closes, after the events of the commits queued before.
    ///
    /// The writer never waits for an observer: events buffer until read.
    public func changes() -> AsyncStream<CommitEvent> {
        changeHub.subscribe()
    }

    /// What the writer has done so far: batches, change sets per batch, commit time.
    public var writerMetrics: WriterMetrics { writer.metrics }
}
