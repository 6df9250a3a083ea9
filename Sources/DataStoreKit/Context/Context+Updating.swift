public import DataStoreCore
import DataStoreEngine

extension Context {
    /// Stages a partial update of the object under `id`: the fields in `set` stored, those in
    /// `unset` removed, the others as this context sees them (``update(id:_:in:)-(_,_,StoreCollection<Object>)`` with a
    /// ``/DataStoreCore/FieldUpdate`` of them). Returns the object as it will be stored.
    @discardableResult
    public func update<Object>(
        id: Value, set: [String: Value], unset: [String] = [], in collection: StoreCollection<Object>
    ) throws -> Object {
        try update(id: id, FieldUpdate(set: set, unset: unset), in: collection)
    }

    /// Stages a partial update of the object under `id` — fields set, removed, incremented,
    /// appended to or stripped of elements, by path (``/DataStoreCore/FieldUpdate``) — the others
    /// as this context sees them. Returns the object as it will be stored.
    ///
    /// The merged object is staged like a ``put(id:object:in:)-(_,_,StoreCollection<Object>)``: the context remembers the
    /// version it read, so with ``/DataStoreEngine/ConflictPolicy/detect`` a save fails with `.conflict` if the
    /// record changed underneath it (even in another field); with ``/DataStoreEngine/ConflictPolicy/lastWriterWins``
    /// the whole merged object is written.
    /// - Throws: ``/DataStoreCore/DataStoreError`` `.notFound` when this context does not see the id;
    ///   `.invalidValue` naming the field (see ``/DataStoreCore/FieldUpdate``), or for a result that no
    ///   longer decodes as `Object` (nothing is staged).
    @discardableResult
    public func update<Object>(id: Value, _ changes: FieldUpdate, in collection: StoreCollection<Object>) throws
        -> Object
    {
        let storage = collection.storage
        try changes.validate(idField: storage.idField, target: "\(storage.name)/\(id)")
        guard id != .null, let document = try viewDocument(id, in: storage) else {
            throw DataStoreError(.notFound, "no object with id \(id) in \(storage.name)")
        }
        let merged = try changes.applied(to: document, target: "\(storage.name)/\(id)")
        let object = try collection.mapping.decodeUpdated(merged, id: id, in: storage.name)
        if changes.isEmpty { return object }
        try stage(
            .upsert(try storage.prepare(merged, id: id)), for: Key(collection: storage.name, id: id), table: storage)
        return object
    }

    /// Stages removing every object this context sees matching `params` (its staged changes over
    /// its snapshot), and returns how many. Each is remembered as read, so with
    /// ``/DataStoreEngine/ConflictPolicy/detect`` a save fails with `.conflict` if one changed underneath.
    /// - Throws: ``/DataStoreCore/DataStoreError`` `.invalidQuery` naming the bad key.
    @discardableResult
    public func remove<Object>(params: [String: Value]?, from collection: StoreCollection<Object>) throws -> Int {
        let storage = collection.storage
        let matches = try viewDocuments(matching: Query(params: params, options: nil), in: storage)
        for document in matches {
            guard let id = document[storage.idField] else { continue }
            try stage(.remove, for: Key(collection: storage.name, id: id), table: storage)
        }
        return matches.count
    }
}
