public import DataStoreCore

/// The live results of one query (``StoreCollection/observe(params:options:)``): the current
/// results first, then the results again after each commit that may have changed them — one that
/// touched the collection, less those (for a query without a limit or offset) whose few touched
/// documents were not among the results and do not match now.
///
/// A flag, not a queue, stands between commits and the consumer: one that falls behind a burst
/// gets the latest results once, never a backlog. Each refresh runs the query over a fresh
/// snapshot on the consumer's task, so it holds no snapshot while it waits. The sequence ends
/// when its task is cancelled or the store closes.
public struct QueryObservation<Object>: AsyncSequence, Sendable {
    /// The results of one run of the query.
    public typealias Element = [Object]
    /// An observation fails only with ``/DataStoreCore/DataStoreError``.
    public typealias Failure = DataStoreError

    let collection: StoreCollection<Object>
    let query: Query

    /// An iterator whose first element is the current results.
    public func makeAsyncIterator() -> Iterator { Iterator(collection: collection, query: query) }

    /// Runs the query first, then after each change to the collection.
    public struct Iterator: AsyncIteratorProtocol {
        /// The results of one run of the query.
        public typealias Element = [Object]
        /// An observation fails only with ``/DataStoreCore/DataStoreError``.
        public typealias Failure = DataStoreError

        let collection: StoreCollection<Object>
        let query: Query
        private var registration: ObserverRegistration?
        /// The ids of the last results, when they are every match.
        private var previous: Set<Value>?
        private var finished = false

        init(collection: StoreCollection<Object>, query: Query) {
            self.collection = collection
            self.query = query
        }

        /// The current results, then the next results once a commit touched the collection.
        ///
        /// - Throws: ``/DataStoreCore/DataStoreError`` `.codec` when a stored record cannot be decoded.
        public mutating func next() async throws(DataStoreError) -> [Object]? {
            try await next(isolation: nil)
        }

        /// ``next()`` from an actor.
        public mutating func next(isolation actor: isolated (any Actor)?) async throws(DataStoreError) -> [Object]? {
            guard !finished, !Task.isCancelled else { return end() }
            if let registration {
                while true {
                    guard let touched = await registration.observer.waitForChange() else { return end() }
                    if QueryObservation.mayChange(previous, touched: touched, in: collection, query) { break }
                    collection.store.observations.noteSkippedRefresh()
                }
            } else {
                // Registered before the first run, so no commit after its snapshot goes unseen.
                let registration = collection.store.observations.register(collection: collection.name)
                self.registration = registration
                if collection.store.changeLog.signal.isClosed { return end() }
            }
            do {
                let (objects, ids) = try QueryObservation.results(of: collection, query)
                previous = ids
                return objects
            } catch  where error.code == .closed && collection.store.changeLog.signal.isClosed {
                // A store that closed while the refresh ran ends the sequence, as a close before it does.
                return end()
            }
        }

        private mutating func end() -> [Object]? {
            finished = true
            registration = nil
            return nil
        }
    }
}
