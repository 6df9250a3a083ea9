public import DataStoreCore

/// The live results of one query (``StoreCollection/observe(params:options:)``): the current
/// results first, then the results again after each commit that touched the collection.
///
/// A flag, not a queue, stands between commits and the consumer: one that falls behind a burst
/// gets the latest results once, never a backlog. Each refresh runs the query over a fresh
/// snapshot on the consumer's task, so it holds no snapshot while it waits. The sequence ends
/// when its task is cancelled or the store closes.
public struct QueryObservation<Object>: AsyncSequence, Sendable {
    public typealias Element = [Object]
    public typealias Failure = DataStoreError

    let collection: StoreCollection<Object>
    let query: Query

    /// An iterator whose first element is the current results.
    public func makeAsyncIterator() -> Iterator { Iterator(collection: collection, query: query) }

    /// Runs the query first, then after each change to the collection.
    public struct Iterator: AsyncIteratorProtocol {
        public typealias Element = [Object]
        public typealias Failure = DataStoreError

        let collection: StoreCollection<Object>
        let query: Query
        private var registration: ObserverRegistration?
        private var finished = false

        init(collection: StoreCollection<Object>, query: Query) {
            self.collection = collection
            self.query = query
        }

        /// The current results, then the next results once a commit touched the collection.
        ///
        /// - Throws: ``DataStoreError`` `.codec` when a stored record cannot be decoded.
        public mutating func next() async throws(DataStoreError) -> [Object]? {
            try await next(isolation: nil)
        }

        /// ``next()`` from an actor.
        public mutating func next(isolation actor: isolated (any Actor)?) async throws(DataStoreError) -> [Object]? {
            guard !finished, !Task.isCancelled else { return end() }
            if let registration {
                guard await registration.observer.waitForChange() else { return end() }
            } else {
                // Registered before the first run, so no commit after its snapshot goes unseen.
                let registration = collection.store.observations.register(collection: collection.name)
                self.registration = registration
                if collection.store.changeLog.signal.isClosed { return end() }
            }
            do {
                return try collection.query(query)
            } catch let error as DataStoreError {
                throw error
            } catch {
                throw DataStoreError(.codec, "observing \(collection.name) failed: \(error)", underlying: error)
            }
        }

        private mutating func end() -> [Object]? {
            finished = true
            registration = nil
            return nil
        }
    }
}
