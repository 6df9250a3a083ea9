package import DataStoreCore

/// Where a ``ChangeFeed`` and an ``ObservationCenter`` read commits from: the LMDB store's
/// `_changes` database, or another backend's record of its commits (the PostgreSQL store's
/// outbox table). Positions are commit ids; a page holds the commits after one, in order.
package protocol ChangeSource: Sendable {
    /// The commits recorded after `position` (after the oldest retained when `nil`), at most `limit`.
    /// Asynchronous so that a source whose reads block (a server's) can run them off the caller's thread.
    ///
    /// - Throws: ``/DataStoreCore/DataStoreError/Code/changesTrimmed`` when commits after `position` were trimmed.
    func changePage(after position: Int?, limit: Int) async throws(DataStoreError) -> ChangePage
    /// The last commit of the store, by any process.
    func lastCommit() throws(DataStoreError) -> Int
    /// Whether the store has closed: no commit of this process follows.
    var isClosed: Bool { get }
    /// Waits until a commit after `commit` may exist: `true`, or `false` once the store closed or
    /// the task was cancelled.
    func waitForCommit(after commit: Int) async -> Bool
    /// How long a reader that cannot read its source pauses before trying again.
    var retryInterval: Duration { get }
}

/// What one read of a ``ChangeSource`` found.
package struct ChangePage: Sendable {
    /// The commits read, in commit order.
    package var events: [CommitEvent]
    /// The position read through: every commit up to it is in `events` or was not recorded.
    package var snapshot: Int
    /// `events` stopped at the limit: more may follow at once.
    package var isFull: Bool

    package init(events: [CommitEvent], snapshot: Int, isFull: Bool) {
        self.events = events
        self.snapshot = snapshot
        self.isFull = isFull
    }
}
