public import DataStoreCore
public import Foundation

/// What one commit changed: one entry of the store's change feed.
public struct CommitEvent: Sendable, Hashable {
    /// The commit, in commit order. Every document it inserted or updated has this commit as its
    /// new version.
    public let commit: CommitID
    /// When the writer committed it (its clock, to the millisecond).
    public let time: Date
    /// The changes, one entry per collection touched, in the order the commit first touched them.
    public let changes: [CollectionChanges]

    /// An event for another backend's feed.
    package init(commit: CommitID, time: Date, changes: [CollectionChanges]) {
        self.commit = commit
        self.time = time
        self.changes = changes
    }
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
