import DataStoreCore
public import DataStoreEngine
import LMDB

extension DataStore {
    /// Opens the store at `path` (``open(path:options:)``) and runs `migrator`'s pending migrations.
    /// - Throws: The errors of ``open(path:options:)`` and ``/DataStoreEngine/Migrator/migrate(_:)``.
    public static func open(path: String, options: Options = Options(), migrator: Migrator) async throws -> DataStore {
        let store = try open(path: path, options: options)
        try await migrator.migrate(store)
        return store
    }

    /// The `_meta` key recording that the migration `name` has run.
    static func migrationKey(_ name: String) -> [UInt8] { Array("migration/\(name)".utf8) }

    /// The names of the migrations recorded in `_meta` as run, in name order.
    public func appliedMigrations() throws -> [String] {
        let prefix = Self.migrationKey("")
        return try metaNames(withPrefix: prefix)
    }

    /// Runs `migration`'s steps and records it, in one exclusive change set; on failure the
    /// transaction is abandoned, the collections' index lists are put back, and databases opened
    /// for its new indexes are dropped again (call ``/DataStoreEngine/Migrator/migrate(_:)``).
    public func _apply(_ migration: Migration) async throws {
        try await schemaLock.withLock {
            var found: [String: CollectionTable] = [:]
            var created: [CollectionTable] = []
            do {
                for step in migration.steps where found[step.collection] == nil {
                    guard case .createCollection(let name, let idField, _) = step else {
                        found[step.collection] = try migratedStorage(step.collection)
                        continue
                    }
                    let (storage, isNew) = try createdStorage(name, idField: idField)
                    found[name] = storage
                    if isNew { created.append(storage) }
                }
            } catch {
                try await forget(created)
                throw error
            }
            let storages = found
            let prepared: PreparedSteps
            do { prepared = try await prepareSteps(migration, storages: storages) } catch {
                try await forget(created)
                throw error
            }
            let restorers = storages.values.map { storage in
                indexRestorer(for: storage, reopening: prepared.dropped.filter { $0.storage === storage }.map(\.index))
            }
            let key = Self.migrationKey(migration.name)
            do {
                _ = try await writer.submit(
                    estimatedBytes: 0, exclusive: true, rollBack: { for undo in restorers { undo() } }
                ) {
                    [self] transaction in
                    for step in prepared.steps { try step(&transaction) }
                    for storage in storages.values {
                        try writeSchema(of: storage, in: &transaction)
                    }
                    try transaction.put([1], forKey: key, in: meta)
                }
            } catch {
                try await dropUnused(prepared.created)
                try await forget(created)
                throw error
            }
        }
    }

    /// The storage of collection `name` for a migration's `createCollection` step, and whether
    /// the store did not hold it (the migration's transaction then records it).
    /// - Throws: ``/DataStoreCore/DataStoreError`` `.schemaMismatch` for a bad name, or a collection
    ///   stored with another id field.
    private func createdStorage(_ name: String, idField: String) throws -> (CollectionTable, isNew: Bool) {
        try StoreNames.checkCollection(name)
        try StoreNames.checkIDField(idField, collection: name)
        let stored = try environment.read { try StoreSchema.read(name, in: $0, meta: meta) }
        if let stored, stored.idField != idField {
            throw DataStoreError(
                .schemaMismatch, "collection \(name) is stored with id field \(stored.idField), not \(idField)")
        }
        return (try registeredStorage(name, idField: idField), stored == nil)
    }

    /// Undoes the collections a failed migration registered: their records' databases dropped,
    /// the process's registrations removed, so the store is as it was.
    private func forget(_ created: [CollectionTable]) async throws {
        guard !created.isEmpty else { return }
        collections.withLock { registered in
            for storage in created where registered[storage.name] === storage { registered[storage.name] = nil }
        }
        try await dropUnused(created.map(\.records))
    }

    /// The storage of a collection the store holds.
    private func migratedStorage(_ name: String) throws -> CollectionTable {
        guard let schema = try environment.read({ try StoreSchema.read(name, in: $0, meta: meta) }) else {
            throw DataStoreError(
                .notFound,
                "no collection \(name) in the store at \(path); a migration creates one with "
                    + "createCollection(_:idField:indexes:) before its other steps")
        }
        return try registeredStorage(name, idField: schema.idField)
    }

    /// A migration's steps made ready for the writer: databases of new indexes opened, indexes
    /// to drop found.
    private struct PreparedSteps: Sendable {
        var steps: [@Sendable (inout WriteTransaction) throws -> Void] = []
        var created: [Database] = []
        var dropped: [(storage: CollectionTable, index: IndexTable)] = []
    }

    private func prepareSteps(_ migration: Migration, storages: [String: CollectionTable]) async throws
        -> PreparedSteps
    {
        var prepared = PreparedSteps()
        var declared = storages.mapValues { Set($0.indexes.map(\.name)) }
        do {
            for step in migration.steps {
                let storage = storages[step.collection]!
                switch step {
                case .transform(_, let transform):
                    prepared.steps.append { transaction in try storage.transformAll(transform, in: &transaction) }
                case .addIndex(_, let definition):
                    guard declared[storage.name]!.insert(definition.name).inserted else {
                        throw DataStoreError(
                            .schemaMismatch, "collection \(storage.name) already has an index \(definition.name)")
                    }
                    try addIndexStep(definition, to: storage, into: &prepared)
                case .dropIndex(_, let name):
                    guard declared[storage.name]!.remove(name) != nil,
                        let index = storage.indexes.first(where: { $0.name == name })
                    else { throw DataStoreError(.schemaMismatch, "collection \(storage.name) has no index \(name)") }
                    prepared.dropped.append((storage, index))
                    prepared.steps.append { transaction in try storage.dropIndex(index, in: &transaction) }
                case .createCollection(_, _, let indexes):
                    // The collection is recorded with the migration's other schema changes; of its
                    // indexes, those it lacks are added.
                    for definition in indexes {
                        if let existing = storage.indexes.first(where: { $0.name == definition.name }) {
                            guard existing.definition == definition else {
                                throw DataStoreError(
                                    .schemaMismatch,
                                    "collection \(storage.name) already has an index \(definition.name) "
                                        + "(\(existing.definition)), not \(definition)")
                            }
                            continue
                        }
                        guard declared[storage.name]!.insert(definition.name).inserted else {
                            throw DataStoreError(
                                .schemaMismatch, "collection \(storage.name) is given an index \(definition.name) twice"
                            )
                        }
                        try addIndexStep(definition, to: storage, into: &prepared)
                    }
                }
            }
        } catch {
            try await dropUnused(prepared.created)
            throw error
        }
        return prepared
    }

    /// Opens the database of `definition`'s new index and adds the step that fills it.
    private func addIndexStep(
        _ definition: IndexDefinition, to storage: CollectionTable, into prepared: inout PreparedSteps
    )
        throws
    {
        try definition.validate(collection: storage.name)
        let database = try openStoreDatabase(
            named: StoreSchema.indexDatabaseName(storage.name, definition.name), options: .create)
        prepared.created.append(database)
        let index = IndexTable(definition: definition, database: database, state: .building)
        prepared.steps.append { transaction in try storage.addIndex(index, in: &transaction) }
    }

    /// Drops databases a failed migration created for its indexes, so the store is as it was.
    private func dropUnused(_ databases: [Database]) async throws {
        guard !databases.isEmpty else { return }
        _ = try await writer.submit(estimatedBytes: 0, exclusive: true) { transaction in
            for database in databases { try transaction.dropDatabase(database) }
        }
    }
}

extension CollectionTable {
    /// Adds `index` and fills it from every record inside `transaction` (idempotent: a change set
    /// may be applied again).
    func addIndex(_ index: IndexTable, in transaction: inout WriteTransaction) throws {
        try transaction.empty(index.database)
        replaceIndexes { list in
            list.removeAll { $0.name == index.name }
            list.append(index)
        }
        var after: [UInt8]? = nil
        while let last = try indexChunk(index, after: after, limit: 1_000, in: &transaction) { after = last }
        replaceIndexes { list in
            for position in list.indices where list[position].name == index.name { list[position].markReady() }
        }
    }

    /// Drops `index`, entries and all, inside `transaction`.
    func dropIndex(_ index: IndexTable, in transaction: inout WriteTransaction) throws {
        try transaction.dropDatabase(index.database)
        replaceIndexes { list in list.removeAll { $0.name == index.name } }
    }
}
