public import DataStoreCore
public import DataStoreEngine

extension PostgresCollection {
    /// The live results of a query: the current results first, then new results after each
    /// commit that may have changed them, by this store or another (docs/postgres.md).
    /// - Throws: ``/DataStoreCore/DataStoreError`` `.invalidQuery` or `.invalidOption` for a malformed query, at once.
    public func observe(params: [String: Value]?, options: [String: Value]?) throws -> PostgresQueryObservation<Object>
    {
        PostgresQueryObservation(collection: self, query: try Query(params: params, options: options))
    }
}

extension PostgresCollection: ObservedCollection {
    package var observations: ObservationCenter { store.observations }

    /// The query's results on a pooled connection, with their ids when the results are every
    /// match (no limit or offset), so that a later commit can be checked against them.
    package func observedResults(of query: Query) async throws(DataStoreError) -> (
        objects: [Object], ids: Set<Value>?
    ) {
        do {
            guard query.limit == nil, query.offset <= 0 else { return (try await self.query(query), nil) }
            let idField = layout.idField
            let rows = try await awaitRun(
                query, otherwise: { runner in try self.run(runner) { body, _ in try self.identified(body, idField) } }
            ) { body, _ in try identified(body, idField) }
            let ids = rows.compactMap(\.id)
            return (rows.map(\.object), ids.count == rows.count ? Set(ids) : nil)
        } catch let error as DataStoreError {
            throw error
        } catch {
            throw DataStoreError(.codec, "observing \(name) failed: \(error)", underlying: error)
        }
    }

    /// Whether commits that touched `touched` may have changed results whose ids were `previous`:
    /// not when none of them was a result and none matches now (one statement over their ids,
    /// where a refresh would run the whole query).
    package func mayChange(_ previous: Set<Value>?, touched: TouchedIDs, _ query: Query) async -> Bool {
        guard let ids = touched.deciding(against: previous) else { return true }
        guard !ids.isEmpty else { return false }
        let touchedOnes = Condition(field: layout.idField, op: .in, value: .array(Array(ids)))
        // A lookup that fails is left to the refresh, which reports it.
        guard let matching = try? await count(Query(conditions: query.conditions + [touchedOnes])) else { return true }
        return matching > 0
    }

    /// The object in `body` and the id its record holds.
    private func identified(_ body: UnsafeRawBufferPointer, _ idField: String) throws -> (object: Object, id: Value?) {
        (try decode(body, id: nil), try RecordCodec.field(idField, in: body))
    }
}
