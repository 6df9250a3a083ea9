public import DataStoreCore

/// A collection seen through a ``Context``: the model protocol inside a unit of work, so code
/// written against ``/DataStoreCore/ModelProtocol`` (the seed's callback forms included) runs unchanged in it.
///
/// ```swift
/// let context = store.newContext()
/// let staged = context.collection(messages)          // a ModelProtocol<Message>
/// _ = try await staged.add(object: message)           // staged, not written
/// let seen = try await staged.get(id: message.id)      // reads see staged writes
/// try await context.save()                             // one change set
/// ```
///
/// Reads answer over the context's snapshot with its staged changes applied; writes are staged
/// and reach the store only when the root context saves. Each call returns once staged.
public struct ContextCollection<Object>: MappedModel {
    /// The unit of work this view reads and stages through.
    public let context: Context
    /// The collection seen.
    public let collection: StoreCollection<Object>

    /// How objects become documents and back: the collection's.
    public var mapping: ObjectMapping<Object> { collection.mapping }

    /// The matches in the context's view (``Context/query(_:params:options:)-(StoreCollection<Object>,_,_)``).
    public func query(params: [String: Value]?, options: [String: Value]?) async throws -> [Object] {
        try context.query(collection, params: params, options: options)
    }

    /// The object under `id` in the context's view (``Context/get(id:from:)-(_,StoreCollection<Object>)``).
    public func get(id: Value) async throws -> Object {
        try context.get(id: id, from: collection)
    }

    /// Stages storing `object` under `id` (``Context/put(id:object:in:)-(_,_,StoreCollection<Object>)``).
    public func put(id: Value, object: Object) async throws -> Object {
        try context.put(id: id, object: object, in: collection)
    }

    /// Stages inserting `object` (``Context/add(_:to:)-(_,StoreCollection<Object>)``).
    public func add(object: Object) async throws -> Object {
        try context.add(object, to: collection)
    }

    /// Stages removing the object under `id` (``Context/remove(id:from:)-(_,StoreCollection<Object>)``).
    public func remove(id: Value) async throws -> Object {
        try context.remove(id: id, from: collection)
    }

    /// Every object in the context's view, in id order.
    public func all() async throws -> [Object] {
        try context.query(collection, params: nil, options: nil)
    }

    /// The number of matches in the context's view.
    /// - Complexity: O(matches): the view merges staged changes, so it counts documents.
    public func count(params: [String: Value]?) async throws -> Int {
        try context.viewDocuments(matching: Query(params: params, options: nil), in: collection.storage).count
    }

    /// Stages a partial update (``Context/update(id:_:in:)-(_,_,StoreCollection<Object>)``).
    public func update(id: Value, _ update: FieldUpdate) async throws -> Object {
        try context.update(id: id, update, in: collection)
    }

    /// Stages removing every match in the context's view (``Context/remove(params:from:)-(_,StoreCollection<Object>)``).
    public func remove(params: [String: Value]?) async throws -> Int {
        try context.remove(params: params, from: collection)
    }
}

extension Context {
    /// `collection` seen through this context, as a ``/DataStoreCore/ModelProtocol``.
    public func collection<Object>(_ collection: StoreCollection<Object>) -> ContextCollection<Object> {
        ContextCollection(context: self, collection: collection)
    }
}
