public import DataStoreCore
import DataStoreKit

/// The live results of one query on a ``PostgresStore`` (``PostgresCollection/observe(params:options:)``):
/// the current results first, then the results again after each commit — by this store or
/// another — that touched the collection.
///
/// A flag, not a queue, stands between commits and the consumer: one that falls behind a burst
/// gets the latest results once. Each refresh runs the query on a pooled connection, so it holds
/// no snapshot while it waits. The sequence ends when its task is cancelled or the store closes.
public struct PostgresQueryObservation<Object>: AsyncSequence, Sendable {
    /// The results of one run of the query.
    public typealias Element = [Object]
    /// An observation fails only with ``/DataStoreCore/DataStoreError``.
    public typealias Failure = DataStoreError

    let collection: PostgresCollection<Object>
    let query: Query

    /// An iterator whose first element is the current results.
    public func makeAsyncIterator() -> Iterator { Iterator(collection: collection, query: query) }

    /// Runs the query first, then after each change to the collection.
    public struct Iterator: AsyncIteratorProtocol {
        /// The results of one run of the query.
        public typealias Element = [Object]
        /// An observation fails only with ``/DataStoreCore/DataStoreError``.
        public typealias Failure = DataStoreError

        let collection: PostgresCollection<Object>
        let query: Query
        private var registration: ObserverRegistration?
        private var finished = false

        init(collection: PostgresCollection<Object>, query: Query) {
            self.collection = collection
            self.query = query
        }

        /// The current results, then the next results once a commit touched the collection.
        /// - Throws: ``/DataStoreCore/DataStoreError`` `.codec` when a stored record cannot be decoded, `.network`.
        public mutating func next() async throws(DataStoreError) -> [Object]? {
            try await next(isolation: nil)
        }

        /// ``next()`` from an actor.
        public mutating func next(isolation actor: isolated (any Actor)?) async throws(DataStoreError) -> [Object]? {
            guard !finished, !Task.isCancelled else { return end() }
            if let registration {
                guard await registration.observer.waitForChange() != nil else { return end() }
            } else {
                // Registered before the first run, so no commit after its snapshot goes unseen.
                registration = collection.store.observations.register(collection: collection.name)
                if collection.store.changeSource.isClosed { return end() }
            }
            do { return try await collection.query(query) } catch let error as DataStoreError {
                // A store that closed while the refresh ran ends the sequence, as a close before it does.
                if error.code == .closed && collection.store.changeSource.isClosed { return end() }
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

extension PostgresCollection {
    /// The live results of a query: the current results first, then new results after each
    /// commit that touched this collection, by this store or another (docs/postgres.md).
    /// - Throws: ``/DataStoreCore/DataStoreError`` `.invalidQuery` or `.invalidOption` for a malformed query, at once.
    public func observe(params: [String: Value]?, options: [String: Value]?) throws -> PostgresQueryObservation<Object>
    {
        PostgresQueryObservation(collection: self, query: try Query(params: params, options: options))
    }
}
