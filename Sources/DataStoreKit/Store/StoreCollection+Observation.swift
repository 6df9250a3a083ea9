public import DataStoreCore
import LMDB
import DataStoreEngine

extension StoreCollection {
    /// The live results of a query: the current results first, then new results after each
    /// durable commit that touched this collection, made in this process or another
    /// (docs/changes.md). Observers cost the writer nothing; commits that touch only other
    /// collections cost an observer nothing.
    ///
    /// ```swift
    /// for try await unread in try messages.observe(params: ["read": false], options: ["sort": "-created_ts"]) {
    ///     badge.count = unread.count
    /// }
    /// ```
    ///
    /// - Throws: ``/DataStoreCore/DataStoreError`` `.invalidQuery` or `.invalidOption` for a malformed query, at once.
    public func observe(params: [String: Value]?, options: [String: Value]?) throws -> QueryObservation<Object> {
        QueryObservation(collection: self, query: try Query(params: params, options: options))
    }
}

extension StoreCollection: ObservedCollection {
    package var observations: ObservationCenter { store.observations }

    /// The query's results and their record bytes, with their ids when the results are every
    /// match (no limit or offset), so that a later commit can be checked against them.
    package func observedResults(of query: Query) throws(DataStoreError) -> ObservedResults<Object> {
        do {
            let plan = plan(for: query)
            let idField = mapping.idField
            let rows = try store.environment.read { transaction in
                try QueryExecutor(storage: storage, plan: plan).run(in: transaction) { body, _ in
                    (try decode(body, id: nil), Array(body), try RecordCodec.field(idField, in: body))
                }
            }
            let ids = rows.compactMap(\.2)
            let everyMatch = query.limit == nil && query.offset <= 0 && ids.count == rows.count
            return ObservedResults(objects: rows.map(\.0), records: rows.map(\.1), ids: everyMatch ? Set(ids) : nil)
        } catch let error as DataStoreError {
            throw error
        } catch {
            throw DataStoreError(.codec, "observing \(name) failed: \(error)", underlying: error)
        }
    }

    /// Whether commits that touched `touched` may have changed results whose ids were `previous`:
    /// not when none of them was a result and none matches now (a few lookups, where a refresh
    /// would run the whole query).
    package func mayChange(_ previous: Set<Value>?, touched: TouchedIDs, _ query: Query) -> Bool {
        guard let ids = touched.deciding(against: previous) else { return true }
        let matchesNow = try? store.environment.read { transaction in
            try ids.contains { id in
                try transaction.withValue(forKey: storage.idKey(id), in: storage.records) { record in
                    query.matches(try RecordCodec.decode(RecordVersion.body(record)))
                } ?? false
            }
        }
        // A lookup that fails is left to the refresh, which reports it.
        return matchesNow ?? true
    }
}
