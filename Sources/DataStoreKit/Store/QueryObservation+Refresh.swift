import DataStoreCore
import LMDB

extension QueryObservation {
    /// The query's results, with their ids when the results are every match (no limit or
    /// offset), so that a later commit can be checked against them.
    static func results(of collection: StoreCollection<Object>, _ query: Query) throws(DataStoreError)
        -> (objects: [Object], ids: Set<Value>?)
    {
        do {
            guard query.limit == nil, query.offset <= 0 else { return (try collection.query(query), nil) }
            let plan = collection.plan(for: query)
            let idField = collection.mapping.idField
            let rows = try collection.store.environment.read { transaction in
                try QueryExecutor(storage: collection.storage, plan: plan).run(in: transaction) { body, _ in
                    (try collection.decode(body, id: nil), try RecordCodec.field(idField, in: body))
                }
            }
            let ids = rows.compactMap(\.1)
            return (rows.map(\.0), ids.count == rows.count ? Set(ids) : nil)
        } catch let error as DataStoreError {
            throw error
        } catch {
            throw DataStoreError(.codec, "observing \(collection.name) failed: \(error)", underlying: error)
        }
    }

    /// Whether commits that touched `touched` may have changed results whose ids were `previous`:
    /// not when none of them was a result and none matches now (a few lookups, where a refresh
    /// would run the whole query).
    static func mayChange(
        _ previous: Set<Value>?, touched: TouchedIDs, in collection: StoreCollection<Object>, _ query: Query
    ) -> Bool {
        guard let previous, case .ids(let ids) = touched else { return true }
        guard ids.isDisjoint(with: previous) else { return true }
        let storage = collection.storage
        let matchesNow = try? collection.store.environment.read { transaction in
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
