import DataStoreCore
import DataStoreEngine
import LMDB

/// The LMDB store's ``/DataStoreEngine/DocumentTransaction``: the calls of a `write { }` closure,
/// made straight on the writer's transaction, which lives while the closure runs.
final class StoreTransaction: DocumentTransaction {
    private let store: DataStore
    private let transaction: UnsafeMutablePointer<WriteTransaction>
    private let state = TransactionState()

    init(store: DataStore, transaction: UnsafeMutablePointer<WriteTransaction>) {
        self.store = store
        self.transaction = transaction
    }

    /// Runs `body` with a transaction over `transaction`, which must outlive the call; throws
    /// what `body` throws, or the write error that doomed the transaction.
    static func run<R>(
        _ body: (any DocumentTransaction) throws -> R, store: DataStore, in transaction: inout WriteTransaction
    ) throws -> R {
        try withUnsafeMutablePointer(to: &transaction) { pointer in
            let scope = StoreTransaction(store: store, transaction: pointer)
            return try scope.state.run(body, with: scope)
        }
    }

    func get<Object>(id: Value, from collection: any DocumentCollection<Object>) throws -> Object {
        try state.checkUsable()
        let own = try own(collection)
        if id == .null { throw DataStoreError(.notFound, "no object without an id in \(own.name)") }
        let key = try own.storage.idKey(id)
        let object = try transaction.pointee.withValue(forKey: key, in: own.storage.records) { record in
            try own.decode(RecordVersion.body(record), id: id)
        }
        guard let object else { throw DataStoreError(.notFound, "no object with id \(id) in \(own.name)") }
        return object
    }

    func query<Object>(
        _ collection: any DocumentCollection<Object>, params: [String: Value]?, options: [String: Value]?
    ) throws -> [Object] {
        try state.checkUsable()
        let own = try own(collection)
        let executor = QueryExecutor(
            storage: own.storage, plan: own.plan(for: try Query(params: params, options: options)))
        return try executor.run(in: transaction.pointee) { body, _ in try own.decode(body, id: nil) }
    }

    func add<Object>(_ object: Object, to collection: any DocumentCollection<Object>) throws -> Object {
        try state.write {
            let own = try own(collection)
            let prepared = try own.prepare(object, id: nil, generatingMissingID: true)
            try own.storage.write(prepared, mode: .insert, in: &transaction.pointee)
            return prepared.keptObjectID ? object : try own.decodeStored(prepared)
        }
    }

    func put<Object>(id: Value, object: Object, in collection: any DocumentCollection<Object>) throws -> Object {
        try state.write {
            let own = try own(collection)
            let prepared = try own.prepare(object, id: id)
            try own.storage.write(prepared, mode: .upsert, in: &transaction.pointee)
            return prepared.keptObjectID ? object : try own.decodeStored(prepared)
        }
    }

    func remove<Object>(id: Value, from collection: any DocumentCollection<Object>) throws -> Object {
        try state.write {
            let own = try own(collection)
            if id == .null { throw DataStoreError(.notFound, "no object without an id in \(own.name)") }
            return try own.mapping.decode(try own.storage.remove(id: id, in: &transaction.pointee))
        }
    }

    func update<Object>(id: Value, _ update: FieldUpdate, in collection: any DocumentCollection<Object>) throws
        -> Object
    {
        try state.write {
            let own = try own(collection)
            if id == .null { throw DataStoreError(.notFound, "no object without an id in \(own.name)") }
            try update.validate(idField: own.storage.idField, target: "\(own.name)/\(id)")
            // Decoded once: the check that refuses a document `Object` cannot read keeps the object.
            var updated: Object?
            let stored = try own.storage.update(
                id: id, changes: update,
                check: { updated = try own.mapping.decodeUpdated($0, id: id, in: own.name) },
                in: &transaction.pointee)
            return try updated ?? own.mapping.decodeUpdated(stored, id: id, in: own.name)
        }
    }

    func remove<Object>(params: [String: Value]?, from collection: any DocumentCollection<Object>) throws -> Int {
        try state.write {
            let own = try own(collection)
            let query = try Query(params: params, options: nil)
            return try own.storage.removeMatching(Query(conditions: query.conditions), in: &transaction.pointee).count
        }
    }

    func saveFeedPosition(_ commit: CommitID, of consumer: String) throws {
        try FeedConsumerName.check(consumer)
        try state.write {
            try transaction.pointee.put(
                DataStore.encodedPosition(commit), forKey: DataStore.feedPositionKey(consumer), in: store.meta)
        }
    }

    /// `collection` as this store's own.
    private func own<Object>(_ collection: any DocumentCollection<Object>) throws(DataStoreError)
        -> StoreCollection<Object>
    {
        guard let own = collection as? StoreCollection<Object>, own.store === store else {
            throw foreignCollection(collection.name, store: store.path)
        }
        return own
    }
}
