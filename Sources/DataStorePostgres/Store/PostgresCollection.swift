public import DataStoreCore
public import DataStoreEngine

/// A collection in a ``PostgresStore``: the model protocol over a PostgreSQL table, with the
/// semantics of `StoreCollection` (the shared conformance battery checks both).
///
/// Get one with ``PostgresStore/collection(_:mapping:indexes:indexBuildChunk:undeclaredIndexes:)``.
public final class PostgresCollection<Object>: MappedModel, Sendable {
    /// The store holding the collection.
    public let store: PostgresStore
    /// How objects become documents and back.
    public let mapping: ObjectMapping<Object>
    let layout: TableLayout

    init(store: PostgresStore, layout: TableLayout, mapping: ObjectMapping<Object>) {
        self.store = store
        self.layout = layout
        self.mapping = mapping
    }

    /// The collection's name.
    public var name: String { layout.name }
    /// The stored indexes, including any the last declaration left out.
    public var indexes: [IndexDefinition] { layout.indexes.map(\.definition) }
    /// Stored indexes the last declaration left out (kept and maintained, as on LMDB).
    public var undeclaredIndexes: [IndexDefinition] { layout.indexes.filter { !$0.declared }.map(\.definition) }

    // MARK: Reads

    /// The object stored under `id`.
    /// - Throws: ``/DataStoreCore/DataStoreError`` `.notFound` naming the id, `.invalidID`, `.codec`, `.network`.
    public func get(id: Value) async throws -> Object {
        guard store.pool.awaitsReads else { return try await store.readers.run { try self.object(id: id) } }
        if id == .null { throw DataStoreError(.notFound, "no object without an id in \(name)") }
        let key = try layout.idKey(id)
        if let result = try await store.pool.awaitResult(
            layout.recordByID, [.bytes(key)], what: { "reading \(name)/\(id)" })
        {
            store.pool.awaitedReads.add(1, ordering: .relaxed)
            guard result.rowCount == 1 else { throw DataStoreError(.notFound, "no object with id \(id) in \(name)") }
            return try result.withBytes(0, 0) { try decode($0 ?? UnsafeRawBufferPointer(start: nil, count: 0), id: id) }
        }
        store.pool.threadReads.add(1, ordering: .relaxed)
        return try await store.readers.run { try self.object(id: id) }
    }

    /// ``get(id:)`` on the caller's thread.
    func object(id: Value) throws -> Object {
        if id == .null { throw DataStoreError(.notFound, "no object without an id in \(name)") }
        guard let object = try record(id: id) else {
            throw DataStoreError(.notFound, "no object with id \(id) in \(name)")
        }
        return object
    }

    /// The object stored under `id`, or `nil`, read with blocking calls on the caller's thread.
    private func record(id: Value) throws -> Object? {
        let key = try layout.idKey(id)
        return try store.pool.read("reading \(name)/\(id)") { connection in
            try record(in: connection.executePrepared(layout.recordByID, [.bytes(key)]), id: id)
        }
    }

    /// The object in `result`, the rows of ``TableLayout/recordByID``, or `nil` when it has none.
    private func record(in result: QueryResult, id: Value) throws -> Object? {
        guard result.rowCount == 1 else { return nil }
        return try result.withBytes(0, 0) { try decode($0 ?? UnsafeRawBufferPointer(start: nil, count: 0), id: id) }
    }

    /// The objects matching `params`, shaped by `options` (docs/queries.md).
    public func query(params: [String: Value]?, options: [String: Value]?) async throws -> [Object] {
        try await store.refreshingIndexes(of: layout) { try await objects(params: params, options: options) }
    }

    /// The one run behind ``query(params:options:)``.
    private func objects(params: [String: Value]?, options: [String: Value]?) async throws -> [Object] {
        guard let params, let limit = Self.compiledLimit(options),
            let digest = DictionaryDigest.of(params, limited: limit != nil)
        else { return try await query(try Query(params: params, options: options)) }
        // A dictionary of a shape met before that compiled runs its plan with these values in
        // place; any other is parsed and planned, and its shape learnt.
        var values = PointValues()
        if let known = layout.dictionaryShape(of: params, limited: limit != nil, digest: digest, values: &values) {
            if let window = known, let runner = window.runner(values, limit: limit, layout: layout) {
                return try await objects(runner)
            }
            return try await query(try Query(params: params, options: options))
        }
        let generation = layout.planCache.generation
        let query = try Query(params: params, options: options)
        let plan = layout.plan(query)
        layout.learnShape(of: params, digest: digest, query: query, plan: plan, generation: generation)
        return try await objects(planned: plan)
    }

    /// The limit of `options` when a compiled shape can take them: `.some(nil)` for none, the
    /// limit for a positive integer `limit` alone; `nil` for any other options, which are parsed.
    private static func compiledLimit(_ options: [String: Value]?) -> Int?? {
        guard let options, !options.isEmpty else { return .some(nil) }
        guard options.count == 1, case .int(let limit)? = options["limit"], limit > 0 else { return nil }
        return .some(Int(limit))
    }

    /// Runs a parsed ``/DataStoreCore/Query`` over one snapshot, on the caller's thread.
    /// - Throws: ``/DataStoreCore/DataStoreError`` `.codec`, `.network`.
    public func query(_ query: Query) throws -> [Object] {
        try store.refreshingIndexes(of: layout) { try run(query) { body, _ in try decode(body, id: nil) } }
    }

    /// Runs a parsed ``/DataStoreCore/Query`` over one snapshot without holding a thread while
    /// the server answers.
    /// - Throws: ``/DataStoreCore/DataStoreError`` `.codec`, `.network`.
    public func query(_ query: Query) async throws -> [Object] {
        try await store.refreshingIndexes(of: layout) { try await objects(planned: layout.plan(query)) }
    }

    /// The objects `plan` finds.
    private func objects(planned plan: QueryPlan) async throws -> [Object] {
        try await objects(PostgresQueryRunner(layout: layout, plan: plan, versions: false))
    }

    /// The objects `runner`'s query finds.
    private func objects(_ runner: PostgresQueryRunner) async throws -> [Object] {
        try await awaitRun(runner, otherwise: { runner in try self.run(runner, self.object) }, object)
    }

    /// The object in a row's record bytes (its version unused).
    private func object(_ body: UnsafeRawBufferPointer, _ version: Int64) throws -> Object {
        try decode(body, id: nil)
    }

    /// The stored documents matching `query`.
    public func documents(matching query: Query) throws -> [Document] {
        try store.refreshingIndexes(of: layout) {
            try run(query) { body, _ in
                do { return try RecordCodec.decode(body) } catch {
                    throw DataStoreError(.codec, "a record in \(name) cannot be decoded", underlying: error)
                }
            }
        }
    }

    /// Every object, in id order.
    public func all() async throws -> [Object] { try await query(Query()) }

    /// The number of objects matching every condition in `params`.
    public func count(params: [String: Value]?) async throws -> Int {
        try await count(try Query(params: params, options: nil))
    }

    /// The number of objects matching `query`'s conditions (its sort, offset and limit aside),
    /// each candidate re-checked on its record bytes.
    public func count(_ query: Query) throws -> Int {
        try store.refreshingIndexes(of: layout) {
            try run(Query(conditions: query.conditions), idOrder: false) { _, _ in () }.count
        }
    }

    /// ``count(_:)`` without holding a thread while the server answers.
    public func count(_ query: Query) async throws -> Int {
        let conditions = Query(conditions: query.conditions)
        let matches: [Void] = try await store.refreshingIndexes(of: layout) {
            try await awaitRun(
                conditions, idOrder: false,
                otherwise: { runner in try self.run(runner, idOrder: false) { _, _ in () } }
            ) { _, _ in () }
        }
        return matches.count
    }

    /// How the store would answer `params` and `options`: the planner's choice, as on LMDB, over
    /// the index list a read would use now (which may first read `_meta`'s, as reads do).
    public func explain(params: [String: Value]?, options: [String: Value]? = nil) throws -> QueryPlan {
        store.refreshIndexesIfOld(of: layout)
        return layout.plan(try Query(params: params, options: options))
    }

    /// The planner's choice and the server's `EXPLAIN` of the first statement it runs.
    public func explainOnServer(params: [String: Value]?, options: [String: Value]? = nil) throws -> String {
        let plan = try explain(params: params, options: options)
        guard let statement = try PostgresQueryRunner(layout: layout, plan: plan, versions: false).firstStatement else {
            return plan.description
        }
        let lines = try store.pool.read("explaining a query on \(name)") { connection in
            let result = try connection.execute("EXPLAIN " + statement.sql.text, statement.parameters)
            return (0..<result.rowCount).compactMap { result.text($0, 0) }
        }
        return plan.description + "\nserver: " + lines.joined(separator: "\n        ")
    }

    /// `query` run against one snapshot: one statement when one answers, else a `REPEATABLE
    /// READ` transaction (a plan of several windows starts in one; a scan whose first page did
    /// not answer runs again in one, so no call mixes two snapshots). Rows are read without their
    /// versions: `materialize` is given 0 for each.
    func run<Item>(
        _ query: Query, idOrder: Bool = true, _ materialize: (UnsafeRawBufferPointer, Int64) throws -> Item
    ) throws -> [Item] {
        try run(
            PostgresQueryRunner(layout: layout, plan: layout.plan(query), versions: false), idOrder: idOrder,
            materialize)
    }

    /// ``run(_:idOrder:_:)`` with the query already planned into `runner`.
    func run<Item>(
        _ runner: PostgresQueryRunner, idOrder: Bool = true,
        _ materialize: (UnsafeRawBufferPointer, Int64) throws -> Item
    ) throws -> [Item] {
        try store.pool.read("querying \(name)") { connection in
            if !runner.needsSeveralStatements,
                let items = try runner.run(
                    on: connection, singleStatement: true, idOrder: idOrder, materialize: materialize)
            {
                return items
            }
            try connection.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
            let items = try runner.run(on: connection, idOrder: idOrder, materialize: materialize) ?? []
            try connection.execute("COMMIT")
            return items
        }
    }

    /// `query` answered by its one statement on an idle connection without holding a thread
    /// while the server answers, when one statement answers; else `otherwise` (which must give
    /// the same items) on a reader thread, handed the query as planned once for both. As in
    /// ``run(_:idOrder:_:)``, versions are not read.
    func awaitRun<Item>(
        _ query: Query, idOrder: Bool = true, otherwise: @escaping @Sendable (PostgresQueryRunner) throws -> [Item],
        _ materialize: (UnsafeRawBufferPointer, Int64) throws -> Item
    ) async throws -> [Item] {
        try await awaitRun(
            PostgresQueryRunner(layout: layout, plan: layout.plan(query), versions: false), idOrder: idOrder,
            otherwise: otherwise, materialize)
    }

    /// ``awaitRun(_:idOrder:otherwise:_:)`` for a query already planned into `runner`.
    func awaitRun<Item>(
        _ runner: PostgresQueryRunner, idOrder: Bool = true,
        otherwise: @escaping @Sendable (PostgresQueryRunner) throws -> [Item],
        _ materialize: (UnsafeRawBufferPointer, Int64) throws -> Item
    ) async throws -> [Item] {
        let fallback: @Sendable () throws -> [Item] = { try otherwise(runner) }
        guard store.pool.awaitsReads, let statement = runner.soleStatement else {
            return try await store.readers.run(fallback)
        }
        if let result = try await store.pool.awaitResult(
            statement.sql, statement.parameters, what: { "querying \(name)" }),
            let items = try runner.answer(from: result, idOrder: idOrder, materialize: materialize)
        {
            store.pool.awaitedReads.add(1, ordering: .relaxed)
            return items
        }
        store.pool.threadReads.add(1, ordering: .relaxed)
        return try await store.readers.run(fallback)
    }

    func decode(_ body: UnsafeRawBufferPointer, id: Value?) throws -> Object {
        do { return try mapping.decodeRecord(body) } catch {
            let record = id.map { "the record \($0)" } ?? "a record"
            throw DataStoreError(
                .codec, "\(record) in \(name) cannot be decoded into \(Object.self)", underlying: error)
        }
    }

    // MARK: Writes

    /// Stores `object` under `id`, replacing or inserting it, and returns it as stored.
    public func put(id: Value, object: Object) async throws -> Object {
        let (row, kept) = try prepare(object, id: id)
        _ = try await store.writer.submit([.upsert(row, layout, version: nil)])
        return kept ? object : try stored(row)
    }

    /// Inserts `object` (a new id when it has none) and returns it as stored.
    /// - Throws: ``/DataStoreCore/DataStoreError`` `.duplicateID`, `.uniqueViolation`, `.invalidValue`.
    public func add(object: Object) async throws -> Object {
        let (row, kept) = try prepare(object, id: nil, generatingMissingID: true)
        _ = try await store.writer.submit([.insert(row, layout, expectingAbsent: false)])
        return kept ? object : try stored(row)
    }

    /// Inserts every object as one change set — all or none — and returns their ids.
    @discardableResult
    public func add(contentsOf objects: [Object]) async throws -> [Value] {
        let rows = try objects.map { try prepare($0, id: nil, generatingMissingID: true).row }
        _ = try await store.writer.submit(rows.map { .insert($0, layout, expectingAbsent: false) })
        return rows.map(\.id)
    }

    /// Stores every object under its id, as one change set — all or none — and returns the ids.
    @discardableResult
    public func put(contentsOf objects: [Object]) async throws -> [Value] {
        let rows = try objects.map { try prepare($0, id: nil).row }
        _ = try await store.writer.submit(rows.map { .upsert($0, layout, version: nil) })
        return rows.map(\.id)
    }

    /// Removes the object stored under `id` and returns it.
    /// - Throws: ``/DataStoreCore/DataStoreError`` `.notFound` naming the id.
    public func remove(id: Value) async throws -> Object {
        if id == .null { throw DataStoreError(.notFound, "no object without an id in \(name)") }
        let key = try layout.idKey(id)
        let (outcomes, _) = try await store.writer.submit([.remove(id: id, key: key, layout, version: nil)])
        guard let record = outcomes.first?.removedRecord else {
            throw DataStoreError(.notFound, "no object with id \(id) in \(name)")
        }
        return try record.withUnsafeBytes { try decode($0, id: id) }
    }

    /// `object` made ready to write, and whether its id is the one it held.
    func prepare(_ object: Object, id: Value?, generatingMissingID: Bool = false) throws -> (
        row: PreparedRow, kept: Bool
    ) {
        let document: Document
        do {
            if let encodeRecord = mapping.encodeRecord {
                document = try RecordCodec.decode(encodeRecord(object).bytes)
            } else {
                document = try mapping.encode(object)
            }
        } catch let error as DataStoreError {
            throw error
        } catch {
            throw DataStoreError(
                .invalidValue, "an object of type \(Object.self) cannot be stored in \(name): \(error)",
                underlying: error)
        }
        let own = Self.identity(document[layout.idField])
        guard let chosen = id ?? own ?? (generatingMissingID ? Optional(.string(IDGenerator.next())) : nil) else {
            throw DataStoreError(
                .invalidID, "an object without an id in field \(layout.idField) cannot be put into \(name)")
        }
        return (try PreparedRow(document, id: chosen, layout: layout, maxBytes: store.maxDocumentBytes), own == chosen)
    }

    /// The object `row` stores, decoded from its record bytes.
    func stored(_ row: PreparedRow) throws -> Object {
        try row.body.withUnsafeBytes { try decode($0, id: row.id) }
    }

    /// `value` as an id, or `nil` when it is absent, `null` or an empty string (the seed's rule).
    static func identity(_ value: Value?) -> Value? {
        switch value {
        case nil, .null?: return nil
        case .string(let text)? where text.isEmpty: return nil
        case let id?: return id
        }
    }
}
