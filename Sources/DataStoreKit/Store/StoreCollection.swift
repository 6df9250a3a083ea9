public import DataStoreCore
import LMDB
import DataStoreEngine

/// A collection in a ``DataStore``: the model protocol over LMDB, for objects mapped by an
/// ``/DataStoreCore/ObjectMapping`` (an `ObjectCoder` class or a `Codable` type).
///
/// Reads run on the caller's task over a fresh snapshot per call; writes are queued to the
/// store's writer and return once committed (durably, by default). Get one with
/// `DataStore/collection(_:mapping:indexes:indexBuildChunk:)`.
public final class StoreCollection<Object>: ModelProtocol, Sendable {
    /// The store holding the collection.
    public let store: DataStore
    /// How objects become documents and back.
    public let mapping: ObjectMapping<Object>
    let storage: CollectionTable
    /// The store's environment, not retained: `store` keeps it alive. Reads reach it without
    /// retaining and releasing the store and the environment — both held weakly by their
    /// registries, so every retain would take the slow side-table path.
    private let environment: Unmanaged<Environment>

    init(store: DataStore, storage: CollectionTable, mapping: ObjectMapping<Object>) {
        self.store = store
        self.storage = storage
        self.mapping = mapping
        self.environment = Unmanaged.passUnretained(store.environment)
    }

    /// Runs `body` over a fresh snapshot of the store.
    @inline(__always)
    private func read<R>(_ body: (borrowing ReadTransaction) throws -> R) throws -> R {
        try environment._withUnsafeGuaranteedRef { try $0.read(body) }
    }

    /// The collection's name.
    public var name: String { storage.name }
    /// The stored indexes, complete ones and any still being built, including any the
    /// declaration left out (see ``undeclaredIndexes``).
    public var indexes: [IndexDefinition] { storage.indexes.map(\.definition) }
    /// Stored indexes the application's last declaration of this collection left out. They are
    /// kept and maintained (and used by queries) until dropped with ``DataStore/dropIndex(named:from:)``
    /// or a declaration made with ``/DataStoreEngine/UndeclaredIndexes/drop``: an application that sees one here
    /// has either forgotten to declare it or should drop it.
    public var undeclaredIndexes: [IndexDefinition] { storage.indexes.filter { !$0.declared }.map(\.definition) }

    // MARK: Reads

    /// The object stored under `id`.
    /// - Complexity: O(log n).
    /// - Throws: ``/DataStoreCore/DataStoreError`` `.notFound` naming the id, `.invalidID` for an id that cannot
    ///   exist, `.codec` for a record that cannot be decoded.
    public func get(id: Value) async throws -> Object {
        try object(id: id)
    }

    /// ``get(id:)`` without suspending: a synchronous read of one snapshot, for code that is
    /// not async (a thread of its own, a synchronous callback).
    ///
    /// - Throws: As the async form.
    public func get(id: Value) throws -> Object {
        try object(id: id)
    }

    /// The one lookup behind both forms of ``get(id:)`` (an async caller would otherwise
    /// resolve to the async form).
    private func object(id: Value) throws -> Object {
        // The seed: an object whose identifier is absent is not found.
        if id == .null { throw DataStoreError(.notFound, "no object without an id in \(name)") }
        let key = try storage.idKey(id)
        return try read { transaction in
            // The record's bytes stay valid until the read transaction ends (LMDB's rule), and
            // an `Object?` here would cost a generic-metadata lookup per call in this
            // unspecialized code: so the lookup yields the bytes, and decoding happens after.
            guard let record = try transaction.withValue(forKey: key, in: storage.records, { $0 }) else {
                throw DataStoreError(.notFound, "no object with id \(id) in \(name)")
            }
            return try decode(RecordVersion.body(record), id: id)
        }
    }

    /// The objects matching `params`, shaped by `options` (docs/queries.md). Without a `sort`
    /// option the order is the order of the chosen plan.
    public func query(params: [String: Value]?, options: [String: Value]?) async throws -> [Object] {
        try objects(params: params, options: options)
    }

    /// ``query(params:options:)`` without suspending: a synchronous read of one snapshot.
    ///
    /// - Throws: As the async form.
    public func query(params: [String: Value]?, options: [String: Value]?) throws -> [Object] {
        try objects(params: params, options: options)
    }

    /// The one run behind both forms of ``query(params:options:)``: a dictionary of a shape seen
    /// before that compiled to a ``PointQuery`` runs it with its values; any other is parsed and
    /// planned, and its shape learnt.
    private func objects(params: [String: Value]?, options: [String: Value]?) throws -> [Object] {
        guard options?.isEmpty ?? true, let params, let digest = DictionaryDigest.of(params) else {
            return try objects(matching: Query(params: params, options: options))
        }
        var values = PointValues()
        if let known = storage.dictionaryShape(of: params, digest: digest, values: &values) {
            if let point = known { return try objects(point, values) }
            return try objects(matching: Query(params: params, options: options))
        }
        // The generation before the plan's index list: a shape learnt from a list that changed
        // meanwhile is not kept.
        let generation = storage.planCache.generation
        let query = try Query(params: params, options: options)
        let plan = self.plan(for: query)
        storage.learnShape(of: params, digest: digest, query: query, plan: plan, generation: generation)
        return try objects(planned: plan)
    }

    /// The objects `point` finds for `values`, over one snapshot.
    func objects(_ point: PointQuery, _ values: PointValues) throws -> [Object] {
        // Collected by the mapping, in code compiled for `Object`; the snapshot's closure returns
        // nothing, since an `[Object]` result would cost this unspecialized code a metadata lookup.
        var objects: [Object] = []
        try read { transaction in
            objects = try mapping.collectRecords(1) { add in
                try point.run(values, storage: storage, in: transaction) { try adding($0, with: add) }
            }
        }
        return objects
    }

    /// Runs a parsed ``/DataStoreCore/Query`` synchronously over one snapshot.
    ///
    /// - Throws: ``/DataStoreCore/DataStoreError`` `.codec` for a record that cannot be decoded.
    public func query(_ query: Query) throws -> [Object] {
        try objects(matching: query)
    }

    /// The one run behind every form of ``query(_:)``.
    private func objects(matching query: Query) throws -> [Object] {
        try objects(planned: plan(for: query))
    }

    /// The objects `plan` finds, over one snapshot.
    func objects(planned plan: consuming QueryPlan) throws -> [Object] {
        // Made outside the closure, which would otherwise copy the plan it captures.
        let executor = QueryExecutor(storage: storage, plan: plan)
        let capacity = ResultCollector.expectedCount(of: executor.plan) ?? 16
        var objects: [Object] = []
        try read { transaction in
            var collector: ResultCollector?
            let taken = try mapping.collectRecords(capacity) { add in
                collector = try executor.take(in: transaction) { body, _ in try adding(body, with: add) }
            }
            objects = collector?.results(taken) ?? []
        }
        return objects
    }

    /// Every object, in id order.
    public func all() async throws -> [Object] {
        try objects(matching: Query())
    }

    /// The synchronous `get(id:)`, under its former name.
    @available(*, deprecated, renamed: "get(id:)")
    public func getNow(id: Value) throws -> Object { try object(id: id) }

    /// The synchronous ``query(_:)``, under its former name.
    @available(*, deprecated, renamed: "query(_:)")
    public func queryNow(_ query: Query) throws -> [Object] { try objects(matching: query) }

    /// How the store would answer `params` and `options`, without running the query.
    public func explain(params: [String: Value]?, options: [String: Value]? = nil) throws -> QueryPlan {
        plan(for: try Query(params: params, options: options))
    }

    /// The number of objects stored.
    public func count() throws -> Int {
        try read { try $0.count(of: storage.records) }
    }

    /// The number of objects matching every condition in `params`, without building any: counted
    /// from index entries alone when the chosen index holds every condition's field (no record is
    /// read, except those whose indexed value was cut to fit a key), otherwise by checking the
    /// conditions on each candidate record's bytes.
    ///
    /// - Throws: ``/DataStoreCore/DataStoreError`` `.invalidQuery` naming the bad key; `.codec` for a record that
    ///   cannot be read.
    /// - Complexity: O(index entries in the scanned range), or O(candidate records).
    public func count(params: [String: Value]?) async throws -> Int {
        try countOutcome(Query(params: params, options: nil)).count
    }

    /// ``count(params:)`` without suspending.
    public func count(params: [String: Value]?) throws -> Int {
        try countOutcome(Query(params: params, options: nil)).count
    }

    /// The number of objects matching `query`'s conditions (its sort, offset and limit do not
    /// change what is counted). See `count(params:)`.
    public func count(_ query: Query) throws -> Int {
        try countOutcome(query).count
    }

    /// The count of `query`'s matches, with how it was reached.
    package func countOutcome(_ query: Query) throws -> QueryCounter.Outcome {
        var conditions = query
        conditions.sort = []
        conditions.limit = nil
        conditions.offset = 0
        let plan = self.plan(for: conditions)
        return try read { try QueryCounter(storage: storage, plan: plan).count(in: $0) }
    }

    /// The stored document under `id`, or `nil`.
    public func document(id: Value) throws -> Document? {
        let key = try storage.idKey(id)
        return try read { transaction in
            try transaction.withValue(forKey: key, in: storage.records) { try storage.decodeDocument($0, id: "\(id)") }
        }
    }

    /// The stored documents matching `query`.
    public func documents(matching query: Query) throws -> [Document] {
        let plan = self.plan(for: query)
        return try read { transaction in
            try QueryExecutor(storage: storage, plan: plan).run(in: transaction) { body, _ in
                do { return try RecordCodec.decode(body) } catch { throw storage.undecodable(id: nil, error) }
            }
        }
    }

    func plan(for query: Query) -> QueryPlan {
        storage.plan(query)
    }

    /// Hands `body` to a ``/DataStoreCore/ObjectMapping/collectRecords`` run's `add`, naming the
    /// collection in the error when the record cannot be decoded, as ``decode(_:id:)`` does.
    private func adding(_ body: UnsafeRawBufferPointer, with add: (UnsafeRawBufferPointer) throws -> Void) throws {
        do {
            try add(body)
        } catch {
            throw storage.undecodable(id: nil, into: Object.self, error)
        }
    }

    func decode(_ body: UnsafeRawBufferPointer, id: Value?) throws -> Object {
        do {
            return try mapping.decodeRecord(body)
        } catch {
            throw storage.undecodable(id: id.map { "\($0)" }, into: Object.self, error)
        }
    }

    // MARK: Writes

    /// Stores `object` under `id`, replacing what was there or inserting it (the seed's upsert),
    /// and returns it as stored.
    public func put(id: Value, object: Object) async throws -> Object {
        let prepared = try prepare(object, id: id)
        try await store.put(prepared, in: storage)
        // Stored as given: hand the caller's object back rather than decoding a copy.
        return prepared.keptObjectID ? object : try decodeStored(prepared)
    }

    /// Inserts `object` and returns it as stored. An object without an id (absent, `null` or an
    /// empty string) gets a new unique, time-ordered one.
    /// - Throws: ``/DataStoreCore/DataStoreError`` `.duplicateID` when the id is already stored.
    public func add(object: Object) async throws -> Object {
        let prepared = try prepare(object, id: nil, generatingMissingID: true)
        try await store.add(prepared, in: storage)
        // Only a generated id makes the stored object differ from the caller's.
        return prepared.keptObjectID ? object : try decodeStored(prepared)
    }

    /// Inserts every object as one change set — all of them or, on any error, none — and
    /// returns their ids (generated for objects without one).
    /// - Throws: ``/DataStoreCore/DataStoreError`` `.duplicateID` (an id stored or repeated), `.uniqueViolation`,
    ///   `.invalidValue`, naming the object concerned.
    /// - Complexity: one commit for the whole batch.
    @discardableResult
    public func add(contentsOf objects: [Object]) async throws -> [Value] {
        let prepared = try objects.map { try prepare($0, id: nil, generatingMissingID: true) }
        return try await store.write(prepared, mode: .insert, in: storage)
    }

    /// Stores every object under the id in its id field, replacing or inserting, as one change
    /// set — all of them or none — and returns the ids.
    /// - Throws: ``/DataStoreCore/DataStoreError`` `.invalidID` for an object without an id, and the errors of `put`.
    @discardableResult
    public func put(contentsOf objects: [Object]) async throws -> [Value] {
        let prepared = try objects.map { try prepare($0, id: nil, generatingMissingID: false) }
        return try await store.write(prepared, mode: .upsert, in: storage)
    }

    /// Removes the object stored under `id` and returns it.
    /// - Throws: ``/DataStoreCore/DataStoreError`` `.notFound` naming the id.
    public func remove(id: Value) async throws -> Object {
        try mapping.decode(try await store.removeDocument(id: id, in: storage))
    }
}

extension StoreCollection {
    /// `object` made ready to write — through the mapping's record writer when it has one (no
    /// document made), else through a document — under `id` when given, else under the id it
    /// holds, else, with `generatingMissingID`, a new one.
    /// - Throws: ``/DataStoreCore/DataStoreError`` `.invalidValue` for an object that cannot be stored, `.invalidID`.
    func prepare(_ object: Object, id: Value?, generatingMissingID: Bool = false) throws -> PreparedDocument {
        let storage = self.storage
        do {
            if let encodeRecord = mapping.encodeRecord {
                return try storage.prepare(
                    record: encodeRecord(object), id: id, generatingMissingID: generatingMissingID)
            }
            let document = try mapping.encode(object)
            let own = DataStore.identity(of: document, idField: storage.idField)
            let chosen = try storage.chooseID(id ?? own, generatingMissingID: generatingMissingID)
            return try storage.prepare(document, id: chosen, keptObjectID: own == chosen)
        } catch let error as DataStoreError {
            throw error
        } catch {
            throw DataStoreError(
                .invalidValue, "an object of type \(Object.self) cannot be stored in \(name): \(error)",
                underlying: error)
        }
    }

    /// The object `prepared` stores, read back from its record bytes.
    func decodeStored(_ prepared: PreparedDocument) throws -> Object {
        try prepared.body.withUnsafeBytes { try decode($0, id: prepared.id) }
    }
}

extension DataStore {
    /// The id field of `document`, or a generated id when it has none.
    static func identity(of document: Document, idField: String) -> Value? {
        identity(of: document[idField])
    }

    /// `value` as an id, or `nil` when it is absent, `null` or an empty string.
    static func identity(of value: Value?) -> Value? {
        switch value {
        case nil, .null?: return nil
        case .string(let text)? where text.isEmpty: return nil
        case let id?: return id
        }
    }

    func put(_ prepared: PreparedDocument, in storage: CollectionTable) async throws {
        _ = try await writer.submit(estimatedBytes: prepared.body.count, mayCommitOnCaller: true) { transaction in
            try storage.write(prepared, mode: .upsert, in: &transaction)
        }
    }

    func add(_ prepared: PreparedDocument, in storage: CollectionTable) async throws {
        _ = try await writer.submit(estimatedBytes: prepared.body.count, mayCommitOnCaller: true) { transaction in
            try storage.write(prepared, mode: .insert, in: &transaction)
        }
    }

    func write(_ prepared: [PreparedDocument], mode: WriteMode, in storage: CollectionTable) async throws -> [Value] {
        let bytes = prepared.reduce(0) { $0 + $1.body.count }
        _ = try await writer.submit(estimatedBytes: bytes, mayCommitOnCaller: true) { transaction in
            for document in prepared { try storage.write(document, mode: mode, in: &transaction) }
        }
        return prepared.map(\.id)
    }

    func removeDocument(id: Value, in storage: CollectionTable) async throws -> Document {
        if id == .null { throw DataStoreError(.notFound, "no object without an id in \(storage.name)") }
        _ = try storage.idKey(id)
        let (removed, _) = try await writer.submit(estimatedBytes: 64, mayCommitOnCaller: true) { transaction in
            try storage.remove(id: id, in: &transaction)
        }
        return removed
    }
}
