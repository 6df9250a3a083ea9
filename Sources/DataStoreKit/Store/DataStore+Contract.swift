public import DataStoreCore
public import DataStoreEngine
import Synchronization

/// The LMDB store under the contract every store keeps (``/DataStoreEngine/DocumentStore``).
extension DataStore: DocumentStore {
    /// The store's directory.
    public var location: String { path }

    public func _collection<Object>(
        _ name: String, mapping: ObjectMapping<Object>, indexes: [IndexDefinition], indexBuildChunk: Int,
        undeclaredIndexes: UndeclaredIndexes
    ) async throws -> any DocumentCollection<Object> {
        try await collection(
            name, mapping: mapping, indexes: indexes, indexBuildChunk: indexBuildChunk,
            undeclaredIndexes: undeclaredIndexes) as StoreCollection<Object>
    }

    public func _documentCollection(_ name: String) async throws -> any DocumentCollection<Document> {
        try await documentCollection(name) as StoreCollection<Document>
    }

    public func _newContext(policy: ConflictPolicy) -> any UnitOfWork { newContext(policy: policy) as Context }

    /// ``addIndex(_:to:buildChunk:)``, telling `progress` the index's entries every 50 ms while it
    /// builds (each chunk of a build commits, so the statistics see it grow).
    public func addIndex(
        _ definition: IndexDefinition, to name: String, buildChunk: Int,
        progress: @escaping @Sendable (_ entries: Int) -> Void
    ) async throws {
        let finished = BuildFinished()
        let building = Task {
            defer { finished.flag.store(true, ordering: .releasing) }
            try await addIndex(definition, to: name, buildChunk: buildChunk)
        }
        while !finished.flag.load(ordering: .acquiring) {
            try? await Task.sleep(for: .milliseconds(50))
            let collection = try? statistics().collections.first { $0.name == name }
            if let index = collection?.indexes.first(where: { $0.definition.name == definition.name }) {
                progress(index.entries)
            }
        }
        try await building.value
    }
}

/// Set once an index build has ended, for the loop that reports its progress.
private final class BuildFinished: Sendable {
    let flag = Atomic<Bool>(false)
}

extension StoreCollection: DocumentCollection {}

extension CollectionSnapshot: DocumentSnapshot {}

extension PreparedQuery: PreparedDocumentQuery {}

/// A context under the contract every unit of work keeps (``/DataStoreEngine/UnitOfWork``): the same calls, taking
/// any collection of this store.
extension Context: UnitOfWork {
    public func get<Object>(id: Value, from collection: any DocumentCollection<Object>) throws -> Object {
        try get(id: id, from: own(collection))
    }

    public func query<Object>(
        _ collection: any DocumentCollection<Object>, params: [String: Value]?, options: [String: Value]?
    ) throws -> [Object] {
        try query(own(collection), params: params, options: options)
    }

    public func add<Object>(_ object: Object, to collection: any DocumentCollection<Object>) throws -> Object {
        try add(object, to: own(collection))
    }

    public func put<Object>(id: Value, object: Object, in collection: any DocumentCollection<Object>) throws -> Object {
        try put(id: id, object: object, in: own(collection))
    }

    public func remove<Object>(id: Value, from collection: any DocumentCollection<Object>) throws -> Object {
        try remove(id: id, from: own(collection))
    }

    public func update<Object>(id: Value, _ update: FieldUpdate, in collection: any DocumentCollection<Object>) throws
        -> Object
    {
        try self.update(id: id, update, in: own(collection))
    }

    public func remove<Object>(params: [String: Value]?, from collection: any DocumentCollection<Object>) throws -> Int
    {
        try remove(params: params, from: own(collection))
    }

    public func _newChild() -> any UnitOfWork { newChild() as Context }

    /// `collection` as this store's own.
    private func own<Object>(_ collection: any DocumentCollection<Object>) throws(DataStoreError) -> StoreCollection<
        Object
    > {
        guard let own = collection as? StoreCollection<Object>, own.store === store else {
            throw foreignCollection(collection.name, store: store.path)
        }
        return own
    }
}
