public import DataStoreCore
import DataStoreEngine

extension StoreCollection: MappedModel {
    /// Applies `changes` to the object under `id` — fields set, removed, incremented, appended to
    /// or stripped of elements, each named by its path as queries read it (``/DataStoreCore/FieldUpdate``) —
    /// keeping its other fields, and returns the object as stored.
    ///
    /// The change is applied inside the writer's transaction — the record read, merged and
    /// written with its index entries in one step — so concurrent updates of different fields all
    /// land.
    ///
    /// - Throws: ``/DataStoreCore/DataStoreError`` `.notFound` naming the id (an update never inserts);
    ///   `.invalidValue` naming the field (see ``/DataStoreCore/FieldUpdate``), for a value the record format
    ///   cannot hold, or a result that no longer decodes as `Object` (nothing is written);
    ///   `.uniqueViolation`.
    @discardableResult
    public func update(id: Value, _ changes: FieldUpdate) async throws -> Object {
        if id == .null { throw DataStoreError(.notFound, "no object without an id in \(name)") }
        try changes.validate(idField: storage.idField, target: "\(name)/\(id)")
        _ = try storage.idKey(id)
        let (storage, mapping, name) = (self.storage, self.mapping, self.name)
        let (stored, _) = try await store.writer.submit(estimatedBytes: 256, mayCommitOnCaller: true) {
            transaction in
            try storage.update(
                id: id, changes: changes,
                check: { document in _ = try mapping.decodeUpdated(document, id: id, in: name) },
                in: &transaction)
        }
        return try mapping.decode(stored)
    }

    /// Removes every object matching every condition in `params` in one change set — all of them
    /// or, on any error, none — and returns how many it removed. `nil` or `[:]` removes every
    /// object.
    ///
    /// The plan's candidates are walked inside the write transaction and only each match's id is
    /// read: no document is built, and memory grows with the ids removed (which the commit's
    /// change record lists), not with their documents. Index entries go with their records.
    ///
    /// - Throws: ``/DataStoreCore/DataStoreError`` `.invalidQuery` naming the bad key; `.codec` for a record
    ///   that cannot be read.
    /// - Complexity: that of the query's plan, plus O(log n) per object removed, in one commit.
    @discardableResult
    public func remove(params: [String: Value]?) async throws -> Int {
        try await remove(Query(params: params, options: nil))
    }

    /// Removes every object matching `query`'s conditions (its sort, offset and limit do not
    /// change what is removed) in one change set, and returns how many. See ``remove(params:)``.
    @discardableResult
    public func remove(_ query: Query) async throws -> Int {
        let storage = self.storage
        let (removed, _) = try await store.writer.submit(estimatedBytes: 256) { transaction in
            try storage.removeMatching(Query(conditions: query.conditions), in: &transaction).count
        }
        return removed
    }
}
