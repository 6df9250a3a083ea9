public import DataStoreCore

extension Context {
    /// Stages an insert of `object` and returns it as it will be stored (with a generated id when
    /// it had none). The object is encoded now; nothing is written until the root context saves.
    /// - Throws: ``/DataStoreCore/DataStoreError`` `.duplicateID` when this context already sees the id;
    ///   `.invalidValue` for an object that cannot be stored (nothing is staged); `.invalidID`.
    @discardableResult
    public func add<Object>(_ object: Object, to collection: StoreCollection<Object>) throws -> Object {
        let storage = collection.storage
        // Encoded once, here: the save writes these bytes, and reads of this context decode them.
        let prepared = try collection.prepare(object, id: nil, generatingMissingID: true)
        let key = Key(collection: storage.name, id: prepared.id)
        let (present, read) = try viewContains(key, recordKey: prepared.key, in: storage)
        if present {
            if let read { remember(key, version: read, table: storage) }
            throw DataStoreError(.duplicateID, "an object with id \(prepared.id) already exists in \(storage.name)")
        }
        try stage(.insert(prepared), for: key, table: storage, read: read)
        // Only a generated id makes the stored object differ from the caller's (as the collection's own add).
        return prepared.keptObjectID ? object : try collection.decodeStored(prepared)
    }

    /// Stages storing `object` under `id`, replacing what is there or inserting it. The object is
    /// encoded now.
    /// - Throws: ``/DataStoreCore/DataStoreError`` `.invalidValue` for an object that cannot be stored (nothing is
    ///   staged), `.invalidID` for an id that cannot be a key.
    @discardableResult
    public func put<Object>(id: Value, object: Object, in collection: StoreCollection<Object>) throws -> Object {
        let storage = collection.storage
        let prepared = try collection.prepare(object, id: id)
        let key = Key(collection: storage.name, id: id)
        let (exists, read) = try viewContains(key, recordKey: prepared.key, in: storage)
        try stage(exists ? .upsert(prepared) : .insert(prepared), for: key, table: storage, read: read)
        return prepared.keptObjectID ? object : try collection.decodeStored(prepared)
    }

    /// Stages removing the object under `id`, and returns it.
    /// - Throws: ``/DataStoreCore/DataStoreError`` `.notFound` when this context does not see the id.
    @discardableResult
    public func remove<Object>(id: Value, from collection: StoreCollection<Object>) throws -> Object {
        let storage = collection.storage
        guard id != .null, let document = try viewDocument(id, in: storage) else {
            throw DataStoreError(.notFound, "no object with id \(id) in \(storage.name)")
        }
        try stage(.remove, for: Key(collection: storage.name, id: id), table: storage)
        return try collection.mapping.decode(document)
    }
}
