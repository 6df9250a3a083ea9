public import DataStoreCore
import DataStoreEngine

/// A collection seen through a ``PostgresContext``: the model protocol inside a unit of work, as
/// DataStoreKit's `ContextCollection` is for an LMDB store's contexts.
///
/// Reads answer over the context's snapshot with its staged changes applied, on the store's reader
/// threads (libpq's calls block); writes are staged and reach the server only when the root
/// context saves.
public struct PostgresContextCollection<Object>: MappedModel {
    /// The unit of work this view reads and stages through.
    public let context: PostgresContext
    /// The collection seen.
    public let collection: PostgresCollection<Object>

    /// How objects become documents and back: the collection's.
    public var mapping: ObjectMapping<Object> { collection.mapping }

    /// The matches in the context's view (``PostgresContext/query(_:params:options:)-(PostgresCollection<Object>,_,_)``), read on
    /// one of the store's reader threads.
    public func query(params: [String: Value]?, options: [String: Value]?) async throws -> [Object] {
        let (context, collection) = (self.context, self.collection)
        return try await context.store.readers.run {
            try context.query(collection, params: params, options: options)
        }
    }

    /// The object under `id` in the context's view (``PostgresContext/get(id:from:)-(_,PostgresCollection<Object>)``), read on
    /// one of the store's reader threads.
    public func get(id: Value) async throws -> Object {
        let (context, collection) = (self.context, self.collection)
        return try await context.store.readers.run { try context.get(id: id, from: collection) }
    }

    /// Stages storing `object` under `id` (``PostgresContext/put(id:object:in:)-(_,_,PostgresCollection<Object>)``).
    public func put(id: Value, object: Object) async throws -> Object {
        try context.put(id: id, object: object, in: collection)
    }

    /// Stages inserting `object` (``PostgresContext/add(_:to:)-(_,PostgresCollection<Object>)``).
    public func add(object: Object) async throws -> Object {
        try context.add(object, to: collection)
    }

    /// Stages removing the object under `id` (``PostgresContext/remove(id:from:)-(_,PostgresCollection<Object>)``).
    public func remove(id: Value) async throws -> Object {
        try context.remove(id: id, from: collection)
    }

    /// Every object in the context's view, in id order, read on one of the store's reader threads.
    public func all() async throws -> [Object] {
        try await query(params: nil, options: nil)
    }

    /// The number of matches in the context's view, counted on one of the store's reader threads.
    /// - Complexity: O(matches): the view merges staged changes, so it counts documents.
    public func count(params: [String: Value]?) async throws -> Int {
        let (context, layout) = (self.context, collection.layout)
        let query = try Query(params: params, options: nil)
        return try await context.store.readers.run { try context.viewDocuments(matching: query, in: layout).count }
    }

    /// Stages a partial update (``PostgresContext/update(id:_:in:)-(_,_,PostgresCollection<Object>)``).
    public func update(id: Value, _ update: FieldUpdate) async throws -> Object {
        try context.update(id: id, update, in: collection)
    }

    /// Stages removing every match in the context's view (``PostgresContext/remove(params:from:)-(_,PostgresCollection<Object>)``).
    public func remove(params: [String: Value]?) async throws -> Int {
        try context.remove(params: params, from: collection)
    }
}

extension PostgresContext {
    /// `collection` seen through this context, as a ``/DataStoreCore/ModelProtocol``.
    public func collection<Object>(_ collection: PostgresCollection<Object>) -> PostgresContextCollection<Object> {
        PostgresContextCollection(context: self, collection: collection)
    }
}
