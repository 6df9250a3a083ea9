public import DataStoreCore

/// The store's commits in commit order, each once: those recorded after a position first (read
/// from disk), then each new one as it commits, in this process or another
/// (`DataStore.changes(after:)`, docs/changes.md).
///
/// An iterator reads the log a page at a time at its consumer's pace: it holds no snapshot
/// between pages and buffers at most one page, so a slow consumer neither slows the writer nor
/// grows memory. It ends when its task is cancelled, or once the store has closed and every
/// commit made before is delivered.
public struct ChangeFeed: AsyncSequence, Sendable {
    /// One commit.
    public typealias Element = CommitEvent
    /// A feed fails only with ``/DataStoreCore/DataStoreError``.
    public typealias Failure = DataStoreError

    /// The most events one page read holds.
    static let pageSize = 256

    let log: any ChangeSource
    /// Deliver commits after this one (`nil`: every commit still retained).
    let start: Int?
    /// Wait for new commits once every recorded one is delivered.
    var follows = true

    /// A feed of `source`'s commits after `start` (`nil`: every commit still retained).
    package init(source: any ChangeSource, start: Int?) {
        self.log = source
        self.start = start
    }

    /// The same feed ending, instead of waiting, once it has delivered every commit recorded
    /// before its last read: the log so far (`datastore changes` without `--follow`).
    public var recordedSoFar: ChangeFeed {
        var feed = self
        feed.follows = false
        return feed
    }

    /// An iterator starting at the feed's position.
    public func makeAsyncIterator() -> Iterator { Iterator(log: log, position: start, follows: follows) }

    /// Reads pages of the log and waits for commits when it has read them all.
    public struct Iterator: AsyncIteratorProtocol, Sendable {
        /// One commit.
        public typealias Element = CommitEvent
        /// A feed fails only with ``/DataStoreCore/DataStoreError``.
        public typealias Failure = DataStoreError

        let log: any ChangeSource
        let follows: Bool
        /// The last commit delivered (`nil` before the first, when starting at the oldest).
        var position: Int?
        private var page: [CommitEvent] = []
        private var next = 0
        /// The snapshot last read: no commit up to it is left unread.
        private var readThrough = 0
        private var finished = false

        init(log: any ChangeSource, position: Int?, follows: Bool) {
            self.log = log
            self.position = position
            self.follows = follows
        }

        /// The next commit, waiting for one when every commit so far is delivered.
        ///
        /// - Throws: ``/DataStoreCore/DataStoreError/Code/changesTrimmed`` when the commits after the last one
        ///   delivered were trimmed before this iterator read them; `.storage` or `.codec` when
        ///   the log cannot be read.
        public mutating func next() async throws(DataStoreError) -> CommitEvent? {
            while !finished {
                if next < page.count {
                    defer { next += 1 }
                    position = page[next].commit.rawValue
                    return page[next]
                }
                if Task.isCancelled { break }
                // Read before it is known whether the store has closed: a read begun after the
                // close sees every commit made before it.
                let closed = log.isClosed
                let read = try await log.changePage(after: position, limit: ChangeFeed.pageSize)
                (page, next, readThrough) = (read.events, 0, read.snapshot)
                if position == nil, read.events.isEmpty { position = read.snapshot }
                if !page.isEmpty {
                    // A consumer with a backlog would otherwise never suspend, holding a thread of
                    // the shared pool for as long as commits keep coming.
                    await Task.yield()
                    continue
                }
                if closed || !follows { break }
                if await !log.waitForCommit(after: readThrough), Task.isCancelled { break }
            }
            finished = true
            return nil
        }

        /// ``next()`` from an actor.
        public mutating func next(isolation actor: isolated (any Actor)?) async throws(DataStoreError) -> CommitEvent? {
            try await next()
        }
    }
}
