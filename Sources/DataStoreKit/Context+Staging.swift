public import DataStoreCore

extension Context {
    /// Stages an insert of `object` and returns it as it will be stored (with a generated id when
    /// it had none). Nothing is written until the root context saves.
    /// - Throws: ``DataStoreError`` `.duplicateID` when this context already sees the id.
    @discardableResult
    public func add<Object>(_ object: Object, to collection: StoreCollection<Object>) throws -> Object {
        let storage = collection.storage
        var document = try collection.encodeForStorage(object)
        let id = DataStore.identity(of: document, idField: storage.idField) ?? .string(IDGenerator.next())
        _ = try storage.idKey(id)
        document[storage.idField] = id
        if try viewDocument(id, in: storage) != nil {
            throw DataStoreError(.duplicateID, "an object with id \(id) already exists in \(storage.name)")
        }
        try stage(.insert(document), for: Key(collection: storage.name, id: id), storage: storage)
        return try collection.mapping.decode(document)
    }

    /// Stages storing `object` under `id`, replacing what is there or inserting it.
    @discardableResult
    public func put<Object>(id: Value, object: Object, in collection: StoreCollection<Object>) throws -> Object {
        let storage = collection.storage
        var document = try collection.encodeForStorage(object)
        _ = try storage.idKey(id)
        document[storage.idField] = id
        let exists = try viewDocument(id, in: storage) != nil
        try stage(exists ? .upsert(document) : .insert(document), for: Key(collection: storage.name, id: id), storage: storage)
        return try collection.mapping.decode(document)
    }

    /// Stages removing the object under `id`, and returns it.
    /// - Throws: ``DataStoreError`` `.notFound` when this context does not see the id.
    @discardableResult
    public func remove<Object>(id: Value, from collection: StoreCollection<Object>) throws -> Object {
        let storage = collection.storage
        guard id != .null, let document = try viewDocument(id, in: storage) else {
            throw DataStoreError(.notFound, "no object with id \(id) in \(storage.name)")
        }
        try stage(.remove, for: Key(collection: storage.name, id: id), storage: storage)
        return try collection.mapping.decode(document)
    }

    func stage(_ change: Change, for key: Key, storage: CollectionStorage) throws {
        try state.withLock { state throws(DataStoreError) in
            guard !state.saving else { throw Self.busy(staging: key) }
            state.storages[key.collection] = storage
            Self.combine(change, into: &state, at: key)
        }
    }

    /// The error for staging while this context's save is committing.
    static func busy(staging key: Key) -> DataStoreError {
        DataStoreError(.conflict, "cannot stage \(key.collection)/\(key.id) while this context's save() is committing; "
            + "stage it after the save returns, or in a child context (newChild())")
    }

    /// Folds a later change to `key` into what is staged: only the net effect is kept, so an
    /// insert then a remove stages nothing, and a remove then an add replaces.
    static func combine(_ change: Change, into state: inout State, at key: Key) {
        let combined: Change?
        switch (state.changes[key], change) {
        case (nil, _): combined = change
        case (.insert?, .insert(let document)), (.insert?, .upsert(let document)): combined = .insert(document)
        case (.insert?, .remove): combined = nil
        case (.upsert?, .remove), (.remove?, .remove): combined = .remove
        case (.upsert?, .insert(let document)), (.upsert?, .upsert(let document)),
             (.remove?, .insert(let document)), (.remove?, .upsert(let document)):
            combined = .upsert(document)
        }
        if state.changes[key] == nil { state.order.append(key) }
        state.changes[key] = combined
        if combined == nil { state.order.removeAll { $0 == key } }
    }
}

extension StoreCollection {
    func encodeForStorage(_ object: Object) throws -> Document {
        do {
            return try mapping.encode(object)
        } catch let error as DataStoreError {
            throw error
        } catch {
            throw DataStoreError(.invalidValue, "an object of type \(Object.self) cannot be stored in \(name): \(error)",
                                 underlying: error)
        }
    }
}
