/// The partial update's shorter forms, and the defaults of ``ModelProtocol/update(id:set:unset:)``
/// and ``ModelProtocol/remove(params:)`` for models that have no atomic way to make them.
extension ModelProtocol {
    /// Stores the fields in `set` and removes those in `unset` on the object under `id`, keeping
    /// the others (``update(id:_:)`` with a ``FieldUpdate`` of `set` and `unset`).
    @discardableResult
    public func update(id: Value, set: [String: Value], unset: [String]) async throws -> Object {
        try await update(id: id, FieldUpdate(set: set, unset: unset))
    }

    /// Stores the fields in `set` on the object under `id`, keeping the others. See
    /// ``update(id:_:)``.
    @discardableResult
    public func update(id: Value, set: [String: Value]) async throws -> Object {
        try await update(id: id, set: set, unset: [])
    }

    /// Removes the fields in `unset` from the object under `id`, keeping the others. See
    /// ``update(id:_:)``.
    @discardableResult
    public func update(id: Value, unset: [String]) async throws -> Object {
        try await update(id: id, set: [:], unset: unset)
    }

    /// Reads the object under `id`, changes its document and puts it back: two calls, so a
    /// concurrent write between them is lost. Needs a ``MappedModel``.
    ///
    /// - Throws: ``DataStoreError`` `.unsupported` for a model without a mapping, and the errors of
    ///   ``update(id:_:)``.
    public func update(id: Value, _ update: FieldUpdate) async throws -> Object {
        let mapping = try mappingForDefault("update(id:_:)")
        try update.validate(idField: mapping.idField, target: "\(id)")
        let changed = try update.applied(to: try mapping.encode(try await get(id: id)), target: "\(id)")
        let object: Object
        do { object = try mapping.decode(changed) } catch {
            throw DataStoreError(
                .invalidValue, "the update of \(id) leaves an object that is no longer a \(Object.self): \(error)",
                underlying: error)
        }
        return try await put(id: id, object: object)
    }

    /// Queries the matches and removes each by its id: one call per object, not atomic. Needs a
    /// ``MappedModel``.
    ///
    /// - Throws: ``DataStoreError`` `.unsupported` for a model without a mapping, `.invalidQuery`.
    public func remove(params: [String: Value]?) async throws -> Int {
        let mapping = try mappingForDefault("remove(params:)")
        var removed = 0
        for object in try await query(params: params, options: nil) {
            guard let id = try mapping.encode(object)[mapping.idField] else { continue }
            do {
                _ = try await remove(id: id)
                removed += 1
            } catch let error as DataStoreError where error.code == .notFound {
                // Removed meanwhile by someone else: not ours to count.
            }
        }
        return removed
    }

    private func mappingForDefault(_ call: String) throws(DataStoreError) -> ObjectMapping<Object> {
        guard let mapped = self as? any MappedModel<Object> else {
            throw DataStoreError(
                .unsupported, "\(Self.self) implements neither \(call) nor MappedModel, which its default needs")
        }
        return mapped.mapping
    }
}
