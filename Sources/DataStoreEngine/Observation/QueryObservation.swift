public import DataStoreCore

/// The live results of one query (`StoreCollection.observe(params:options:)`, and
/// `PostgresCollection.observe(params:options:)` on a PostgreSQL store): the current results
/// first, then the results again after each commit that may have changed them — one that touched
/// the collection, less those (for a query without a limit or offset) whose few touched documents
/// were not among the results and do not match now. A refresh whose results are the last ones,
/// record for record and byte for byte, yields nothing: the sequence waits for the next commit.
///
/// A flag, not a queue, stands between commits and the consumer: one that falls behind a burst
/// gets the latest results once, never a backlog. Each refresh runs the query over a fresh
/// snapshot on the consumer's task, so it holds no snapshot while it waits. The sequence ends
/// when its task is cancelled or the store closes, even while a refresh runs.
public struct QueryObservation<Object>: AsyncSequence, Sendable {
    /// The results of one run of the query.
    public typealias Element = [Object]
    /// An observation fails only with ``/DataStoreCore/DataStoreError``.
    public typealias Failure = DataStoreError

    let collection: any ObservedCollection<Object>
    let query: Query

    /// The observation of `query` on `collection`, for the stores' `observe(params:options:)`.
    package init(collection: any ObservedCollection<Object>, query: Query) {
        self.collection = collection
        self.query = query
    }

    /// An iterator whose first element is the current results.
    public func makeAsyncIterator() -> Iterator { Iterator(collection: collection, query: query) }

    /// Runs the query first, then after each change to the collection.
    public struct Iterator: AsyncIteratorProtocol {
        /// The results of one run of the query.
        public typealias Element = [Object]
        /// An observation fails only with ``/DataStoreCore/DataStoreError``.
        public typealias Failure = DataStoreError

        let collection: any ObservedCollection<Object>
        let query: Query
        private var registration: ObserverRegistration?
        /// The ids of the last results, when they are every match.
        private var previous: Set<Value>?
        /// The record bytes of the last results yielded.
        private var yielded: [[UInt8]]?
        private var finished = false

        init(collection: any ObservedCollection<Object>, query: Query) {
            self.collection = collection
            self.query = query
        }

        /// The current results, then the next results once a commit touched the collection.
        ///
        /// - Throws: ``/DataStoreCore/DataStoreError`` `.codec` when a stored record cannot be decoded;
        ///   `.network` when a server cannot be reached.
        public mutating func next() async throws(DataStoreError) -> [Object]? {
            try await next(isolation: nil)
        }

        /// ``next()`` from an actor.
        public mutating func next(isolation actor: isolated (any Actor)?) async throws(DataStoreError) -> [Object]? {
            guard !finished, !Task.isCancelled else { return end() }
            let center = collection.observations
            if registration == nil {
                // Registered before the first run, so no commit after its snapshot goes unseen.
                registration = center.register(collection: collection.name)
                if center.isClosed { return end() }
            } else if await !Self.waitForChange(registration, collection, previous, query) {
                return end()
            }
            while true {
                let results: ObservedResults<Object>
                do {
                    results = try await collection.observedResults(of: query)
                } catch  where error.code == .closed && center.isClosed {
                    // A store that closed while the refresh ran ends the sequence, as a close before it does.
                    return end()
                }
                previous = results.ids
                guard results.records == yielded else {
                    yielded = results.records
                    return results.objects
                }
                center.noteUnchangedRefresh()
                guard await Self.waitForChange(registration, collection, previous, query) else { return end() }
            }
        }

        /// Waits for a commit that may have changed the results; `false` once the store closed or
        /// the task was cancelled.
        private static func waitForChange(
            _ registration: ObserverRegistration?, _ collection: any ObservedCollection<Object>,
            _ previous: Set<Value>?, _ query: Query
        ) async -> Bool {
            guard let registration else { return false }
            while true {
                guard let touched = await registration.observer.waitForChange() else { return false }
                if await collection.mayChange(previous, touched: touched, query) { return true }
                collection.observations.noteSkippedRefresh()
            }
        }

        private mutating func end() -> [Object]? {
            finished = true
            registration = nil
            return nil
        }
    }
}
