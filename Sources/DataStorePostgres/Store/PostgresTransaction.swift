import DataStoreCore
import DataStoreEngine

/// The PostgreSQL store's ``/DataStoreEngine/DocumentTransaction``: the calls of a `write { }`
/// closure, each run at once in the writer's transaction. A `get` locks the row it reads
/// (`FOR UPDATE`), so another process's write of it waits for this commit; a query reads the rows
/// committed when it runs.
final class PostgresTransaction: DocumentTransaction {
    private let store: PostgresStore
    private let session: WriterSession
    private let state = TransactionState()

    private init(store: PostgresStore, session: WriterSession) {
        self.store = store
        self.session = session
    }

    /// Runs `body` with a transaction over `session`; throws what `body` throws, or the write
    /// error that doomed the transaction.
    static func run<R>(_ body: (any DocumentTransaction) throws -> R, store: PostgresStore, session: WriterSession)
        throws -> R
    {
        let scope = PostgresTransaction(store: store, session: session)
        return try scope.state.run(body, with: scope)
    }

    func get<Object>(id: Value, from collection: any DocumentCollection<Object>) throws -> Object {
        try state.checkUsable()
        let own = try own(collection)
        guard let record = try lockedRecord(id, in: own) else {
            throw DataStoreError(.notFound, "no object with id \(id) in \(own.name)")
        }
        return try record.withUnsafeBytes { try own.decode($0, id: id) }
    }

    func query<Object>(
        _ collection: any DocumentCollection<Object>, params: [String: Value]?, options: [String: Value]?
    ) throws -> [Object] {
        try state.checkUsable()
        let own = try own(collection)
        let layout = own.layout
        let runner = try PostgresQueryRunner(
            layout: layout, plan: layout.plan(try Query(params: params, options: options)), versions: false)
        return try session.read(layout) { connection in
            try runner.run(on: connection) { body, _ in try own.decode(body, id: nil) } ?? []
        }
    }

    func add<Object>(_ object: Object, to collection: any DocumentCollection<Object>) throws -> Object {
        try state.write {
            let own = try own(collection)
            let (row, kept) = try own.prepare(object, id: nil, generatingMissingID: true)
            try session.run(.insert(row, own.layout, expectingAbsent: false))
            return kept ? object : try own.stored(row)
        }
    }

    func put<Object>(id: Value, object: Object, in collection: any DocumentCollection<Object>) throws -> Object {
        try state.write {
            let own = try own(collection)
            let (row, kept) = try own.prepare(object, id: id)
            try session.run(.upsert(row, own.layout, version: nil))
            return kept ? object : try own.stored(row)
        }
    }

    func remove<Object>(id: Value, from collection: any DocumentCollection<Object>) throws -> Object {
        try state.write {
            let own = try own(collection)
            if id == .null { throw DataStoreError(.notFound, "no object without an id in \(own.name)") }
            let outcome = try session.run(.remove(id: id, key: try own.layout.idKey(id), own.layout, version: nil))
            guard let record = outcome.removedRecord else {
                throw DataStoreError(.notFound, "no object with id \(id) in \(own.name)")
            }
            return try record.withUnsafeBytes { try own.decode($0, id: id) }
        }
    }

    func update<Object>(id: Value, _ update: FieldUpdate, in collection: any DocumentCollection<Object>) throws
        -> Object
    {
        try state.write {
            let own = try own(collection)
            let layout = own.layout
            try update.validate(idField: layout.idField, target: "\(own.name)/\(id)")
            guard let record = try lockedRecord(id, in: own) else {
                throw DataStoreError(.notFound, "no object with id \(id) in \(own.name)")
            }
            let stored: Document
            do { stored = try RecordCodec.decode(record) } catch {
                throw DataStoreError(.codec, "the record \(id) in \(own.name) cannot be decoded", underlying: error)
            }
            let merged = try update.applied(to: stored, target: "\(own.name)/\(id)")
            let object = try own.mapping.decodeUpdated(merged, id: id, in: own.name)
            if update.isEmpty { return object }
            let row = try PreparedRow(merged, id: id, layout: layout, maxBytes: store.maxDocumentBytes)
            try session.run(.upsert(row, layout, version: nil))
            return object
        }
    }

    func remove<Object>(params: [String: Value]?, from collection: any DocumentCollection<Object>) throws -> Int {
        try state.write {
            let own = try own(collection)
            let layout = own.layout
            let query = try Query(params: params, options: nil)
            let runner = try PostgresQueryRunner(
                layout: layout, plan: layout.plan(Query(conditions: query.conditions)), versions: false)
            let ids: [Value] = try session.read(layout) { connection in
                try runner.run(on: connection) { body, _ in try layout.storedID(in: body) } ?? []
            }
            for id in ids { try session.run(.remove(id: id, key: try layout.idKey(id), layout, version: nil)) }
            return ids.count
        }
    }

    func saveFeedPosition(_ commit: CommitID, of consumer: String) throws {
        try FeedConsumerName.check(consumer)
        try state.write { try FeedPositionTable.save(commit, of: consumer, on: session.connection) }
    }

    /// The record stored under `id`, its row locked until the batch commits, or `nil`.
    private func lockedRecord<Object>(_ id: Value, in collection: PostgresCollection<Object>) throws -> [UInt8]? {
        if id == .null { return nil }
        let layout = collection.layout
        let key = try layout.idKey(id)
        return try session.read(layout) { connection in
            let result = try connection.executePrepared(layout.recordForUpdate, [.bytes(key)])
            return result.rowCount == 1 ? result.bytes(0, 0) : nil
        }
    }

    /// `collection` as this store's own.
    private func own<Object>(_ collection: any DocumentCollection<Object>) throws(DataStoreError)
        -> PostgresCollection<Object>
    {
        guard let own = collection as? PostgresCollection<Object>, own.store === store else {
            throw foreignCollection(collection.name, store: store.location)
        }
        return own
    }
}
