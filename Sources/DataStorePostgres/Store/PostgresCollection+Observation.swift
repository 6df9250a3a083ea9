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

    /// The query's results on a pooled connection and their record bytes, with their ids when the
    /// results are every match (no limit or offset), so that a later commit can be checked
    /// against them.
    package func observedResults(of query: Query) async throws(DataStoreError) -> ObservedResults<Object> {
        do {
            let idField = layout.idField
            let rows = try await store.refreshingIndexes(of: layout) {
                try await awaitRun(
                    query,
                    otherwise: { runner in try self.run(runner) { body, _ in try self.identified(body, idField) } }
                ) { body, _ in try identified(body, idField) }
            }
            let ids = rows.compactMap(\.id)
            let everyMatch = query.limit == nil && query.offset <= 0 && ids.count == rows.count
            return ObservedResults(
                objects: rows.map(\.object), records: rows.map(\.record), ids: everyMatch ? Set(ids) : nil)
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

    /// The object in `body`, its bytes, and the id its record holds.
    private func identified(_ body: UnsafeRawBufferPointer, _ idField: String) throws -> (
        object: Object, record: [UInt8], id: Value?
    ) {
        (try decode(body, id: nil), Array(body), try RecordCodec.field(idField, in: body))
    }
}
