public import DataStoreCore
public import DataStoreKit

extension PostgresCollection {
    /// The live results of a query: the current results first, then new results after each
    /// commit that touched this collection, by this store or another (docs/postgres.md).
    /// - Throws: ``/DataStoreCore/DataStoreError`` `.invalidQuery` or `.invalidOption` for a malformed query, at once.
    public func observe(params: [String: Value]?, options: [String: Value]?) throws -> PostgresQueryObservation<Object>
    {
        PostgresQueryObservation(collection: self, query: try Query(params: params, options: options))
    }
}

extension PostgresCollection: ObservedCollection {
    package var observations: ObservationCenter { store.observations }

    /// The query's results on a pooled connection; their ids are not kept, so every commit that
    /// touched the collection refreshes.
    package func observedResults(of query: Query) async throws(DataStoreError) -> (
        objects: [Object], ids: Set<Value>?
    ) {
        do { return (try await self.query(query), nil) } catch let error as DataStoreError { throw error } catch {
            throw DataStoreError(.codec, "observing \(name) failed: \(error)", underlying: error)
        }
    }
}
