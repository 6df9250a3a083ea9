public import DataStoreCore

extension PostgresContext {
    /// Stages an insert of `object` and returns it as it will be stored (with a generated id when
    /// it had none). The object is encoded now; nothing is written until the root context saves.
    /// - Throws: ``/DataStoreCore/DataStoreError`` `.duplicateID` when this context already sees the id;
    ///   `.invalidValue` for an object that cannot be stored (nothing is staged); `.invalidID`.
    @discardableResult
    public func add<Object>(_ object: Object, to collection: PostgresCollection<Object>) throws -> Object {
        let layout = collection.layout
        let (row, kept) = try collection.prepare(object, id: nil, generatingMissingID: true)
        if try viewContains(row.id, in: layout) {
            throw DataStoreError(.duplicateID, "an object with id \(row.id) already exists in \(layout.name)")
        }
        try stage(.insert(row), for: Key(collection: layout.name, id: row.id), table: layout)
        return kept ? object : try collection.stored(row)
    }

    /// Stages storing `object` under `id`, replacing what is there or inserting it.
    /// - Throws: ``/DataStoreCore/DataStoreError`` `.invalidValue` for an object that cannot be stored (nothing is
    ///   staged), `.invalidID` for an id that cannot be a key.
    @discardableResult
    public func put<Object>(id: Value, object: Object, in collection: PostgresCollection<Object>) throws -> Object {
        let layout = collection.layout
        let (row, _) = try collection.prepare(object, id: id)
        let exists = try viewContains(id, in: layout)
        try stage(exists ? .upsert(row) : .insert(row), for: Key(collection: layout.name, id: id), table: layout)
        return try collection.stored(row)
    }

    /// Stages removing the object under `id`, and returns it.
    /// - Throws: ``/DataStoreCore/DataStoreError`` `.notFound` when this context does not see the id.
    @discardableResult
    public func remove<Object>(id: Value, from collection: PostgresCollection<Object>) throws -> Object {
        let layout = collection.layout
        guard id != .null, let document = try viewDocument(id, in: layout) else {
            throw DataStoreError(.notFound, "no object with id \(id) in \(layout.name)")
        }
        try stage(.remove, for: Key(collection: layout.name, id: id), table: layout)
        return try collection.mapping.decode(document)
    }

    /// Stages a partial update of the object under `id`: the fields in `set` stored, those in
    /// `unset` removed, the others as this context sees them (``update(id:_:in:)-(_,_,PostgresCollection<Object>)`` with a
    /// ``/DataStoreCore/FieldUpdate`` of them).
    @discardableResult
    public func update<Object>(
        id: Value, set: [String: Value], unset: [String] = [], in collection: PostgresCollection<Object>
    ) throws -> Object {
        try update(id: id, FieldUpdate(set: set, unset: unset), in: collection)
    }

    /// Stages a partial update of the object under `id` — fields set, removed, incremented,
    /// appended to or stripped of elements, by path (``/DataStoreCore/FieldUpdate``) — the others
    /// as this context sees them. Returns the object as it will be stored. With
    /// `ConflictPolicy.detect` a save fails with `.conflict` if the record changed underneath
    /// (even in another field).
    /// - Throws: ``/DataStoreCore/DataStoreError`` `.notFound` when this context does not see the id;
    ///   `.invalidValue` naming the field (see ``/DataStoreCore/FieldUpdate``), or for a result that no
    ///   longer decodes as `Object` (nothing is staged).
    @discardableResult
    public func update<Object>(id: Value, _ changes: FieldUpdate, in collection: PostgresCollection<Object>) throws
        -> Object
    {
        let layout = collection.layout
        try changes.validate(idField: layout.idField, target: "\(layout.name)/\(id)")
        guard id != .null, let document = try viewDocument(id, in: layout) else {
            throw DataStoreError(.notFound, "no object with id \(id) in \(layout.name)")
        }
        let merged = try changes.applied(to: document, target: "\(layout.name)/\(id)")
        let object = try collection.mapping.decodeUpdated(merged, id: id, in: layout.name)
        if changes.isEmpty { return object }
        try stage(
            .upsert(try PreparedRow(merged, id: id, layout: layout, maxBytes: store.maxDocumentBytes)),
            for: Key(collection: layout.name, id: id),
            table: layout)
        return object
    }

    /// Stages removing every object this context sees matching `params`, and returns how many.
    /// - Throws: ``/DataStoreCore/DataStoreError`` `.invalidQuery` naming the bad key.
    @discardableResult
    public func remove<Object>(params: [String: Value]?, from collection: PostgresCollection<Object>) throws -> Int {
        let layout = collection.layout
        let matches = try viewDocuments(matching: Query(params: params, options: nil), in: layout)
        for document in matches {
            guard let id = document[layout.idField] else { continue }
            try stage(.remove, for: Key(collection: layout.name, id: id), table: layout)
        }
        return matches.count
    }
}
