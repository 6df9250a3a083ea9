public import DataStoreCore
import LMDB
import DataStoreEngine

extension DataStore {
    /// The collection `name`, storing objects through `mapping`, with the declared secondary
    /// indexes.
    ///
    /// The declaration is reconciled with what the store holds: a newly declared index is built
    /// from the existing records before this returns, so no query sees it incomplete (from one
    /// snapshot, sorted in bounded memory and appended in key order, while writes go on; a unique
    /// index in chunks of `indexBuildChunk` records, each its own commit); an index whose
    /// definition changed is rebuilt. A stored index the declaration leaves out is kept, maintained and reported in
    /// ``StoreCollection/undeclaredIndexes`` unless `undeclaredIndexes` is ``/DataStoreEngine/UndeclaredIndexes/drop``.
    ///
    /// - Throws: ``/DataStoreCore/DataStoreError`` `.schemaMismatch` for an invalid declaration, an id field that
    ///   differs from the stored one, or — for a `Codable` mapping — an id field that is not one of
    ///   the type's coding keys; `.storage` when the store cannot be written.
    public func collection<Object>(
        _ name: String,
        mapping: ObjectMapping<Object>,
        indexes: [IndexDefinition] = [],
        indexBuildChunk: Int = 1_000,
        undeclaredIndexes: UndeclaredIndexes = .keep
    ) async throws -> StoreCollection<Object> {
        try mapping.checkIDField(collection: name)
        let storage = try await openCollection(
            name, idField: mapping.idField, indexes: indexes, buildChunk: indexBuildChunk,
            mode: .declaration(undeclaredIndexes))
        return StoreCollection(store: self, storage: storage, mapping: mapping)
    }

    /// The collection of an ``/DataStoreCore/ObjectCoder`` class, named after the class unless `name` is given
    /// (the seed's entity name). See ``collection(_:mapping:indexes:indexBuildChunk:undeclaredIndexes:)``.
    public func collection<Object: ObjectCoder & SendableMetatype>(
        _ type: Object.Type,
        name: String? = nil,
        indexes: [IndexDefinition] = [],
        undeclaredIndexes: UndeclaredIndexes = .keep
    ) async throws -> StoreCollection<Object> {
        try await collection(
            name ?? String(describing: type), mapping: .objectCoder, indexes: indexes,
            undeclaredIndexes: undeclaredIndexes)
    }

    /// The collection of a `Codable` type whose identifier is the property `idField`, named after
    /// the type unless `name` is given. See ``collection(_:mapping:indexes:indexBuildChunk:undeclaredIndexes:)``.
    public func collection<Object: Codable & SendableMetatype>(
        _ type: Object.Type,
        name: String? = nil,
        idField: String,
        indexes: [IndexDefinition] = [],
        undeclaredIndexes: UndeclaredIndexes = .keep
    ) async throws -> StoreCollection<Object> {
        try await collection(
            name ?? String(describing: type), mapping: .codable(idField: idField), indexes: indexes,
            undeclaredIndexes: undeclaredIndexes)
    }

    /// The names of the collections stored.
    public func collectionNames() throws -> [String] {
        let prefix = StoreSchema.collectionKey("")
        return try metaNames(withPrefix: prefix)
    }

    /// The rest of every `_meta` key that starts with `prefix`, in key order.
    func metaNames(withPrefix prefix: [UInt8]) throws -> [String] {
        try environment.read { transaction in
            var names: [String] = []
            try transaction.walk(meta, from: prefix) { key, _ in
                guard key.starts(with: prefix) else { return false }
                names.append(String(decoding: key.dropFirst(prefix.count), as: UTF8.self))
                return true
            }
            return names
        }
    }

    func openCollection(
        _ name: String, idField: String, indexes declared: [IndexDefinition], buildChunk: Int,
        mode: ReconciliationMode
    ) async throws -> CollectionTable {
        try IndexDefinition.validateDeclaration(of: name, idField: idField, indexes: declared)
        return try await schemaLock.withLock {
            while true {
                if let storage = try await reconcile(
                    name, idField: idField, declared: declared, buildChunk: buildChunk, mode: mode)
                {
                    return storage
                }
            }
        }
    }

    /// One pass of ``openCollection(_:idField:indexes:buildChunk:mode:)`` under the schema
    /// lock; `nil` when an index another process was building went away meanwhile, so the
    /// declaration must be reconciled with the stored schema again.
    private func reconcile(
        _ name: String, idField: String, declared: [IndexDefinition], buildChunk: Int, mode: ReconciliationMode
    ) async throws -> CollectionTable? {
        let storage = try registeredStorage(name, idField: idField)
        // Plan from what is stored now, which another process may have changed.
        refreshSchemasForRead()
        let plan = IndexReconciliation(current: storage.indexes, declared: declared, mode: mode)
        try plan.checkRedefinitions(of: name)
        let recorded = try environment.read { try StoreSchema.read(name, in: $0, meta: meta) } != nil
        if recorded && plan.changesNothing && storage.indexes.allSatisfy({ $0.state == .ready }) { return storage }
        if environment.configuration.flags.contains(.readOnly) {
            // A reader cannot record that an index was left out; it only may not need a change.
            if !recorded || (plan.drop.isEmpty && plan.build.isEmpty) { return storage }
            throw DataStoreError(
                .schemaMismatch,
                "collection \(name)'s declared indexes differ from the stored ones, "
                    + "and the store is read-only")
        }
        try await apply(plan, to: storage, recorded: recorded)
        return try await buildPendingIndexes(of: storage, chunk: buildChunk) ? storage : nil
    }

    /// Drops, registers and re-flags indexes as `plan` says, each step one exclusive change set.
    private func apply(_ plan: IndexReconciliation<IndexTable>, to storage: CollectionTable, recorded: Bool)
        async throws
    {
        let name = storage.name
        // 1. Drop what is redefined, or left out under `.drop`, data and all.
        if !plan.drop.isEmpty {
            let drop = plan.drop
            _ = try await writer.submit(
                estimatedBytes: 0, exclusive: true,
                rollBack: indexRestorer(for: storage, reopening: drop)
            ) { [self] transaction in
                for index in drop { try transaction.dropDatabase(index.database) }
                storage.replaceIndexes { list in list.removeAll { index in drop.contains { $0.name == index.name } } }
                try writeSchema(of: storage, in: &transaction)
            }
        }
        // 2. Register the new indexes as building: from here on every write maintains a unique one
        // and notes itself in the build log of any other (see `buildFromSnapshot`).
        var added: [IndexTable] = []
        for definition in plan.build {
            let database = try openStoreDatabase(
                named: StoreSchema.indexDatabaseName(name, definition.name), options: .create)
            added.append(
                IndexTable(
                    definition: definition, database: database, state: .building,
                    buildLog: definition.unique ? nil : IndexBuildLog(), owner: buildOwner))
        }
        // A new collection is recorded in `_meta` even without indexes, so tools see it.
        guard !added.isEmpty || !plan.declaredChanges.isEmpty || (!recorded && plan.drop.isEmpty) else { return }
        let newIndexes = added
        let flags = plan.declaredChanges
        _ = try await writer.submit(estimatedBytes: 0, exclusive: true, rollBack: indexRestorer(for: storage)) {
            [self] transaction in
            // The list is what is stored now (the writer's hook reloaded it): an index another
            // process registered meanwhile with this definition is adopted, not emptied.
            let fresh = try unregistered(newIndexes, in: storage)
            for index in fresh { try transaction.empty(index.database) }
            // Idempotent: a change set may be applied again (see ChangeSet).
            storage.replaceIndexes { list in
                list += fresh.filter { new in !list.contains { $0.name == new.name } }
                for position in list.indices {
                    if let declared = flags[list[position].name] { list[position].declared = declared }
                }
            }
            try writeSchema(of: storage, in: &transaction)
        }
    }

    /// Fills every index still building from the records, a chunk per commit, then marks it
    /// ready. Existing records that break one (an array in a single-value index, two equal values
    /// in a unique one) undo its declaration: the store is left as it was.
    /// Returns `false` when an index another process was building is gone: the declaration must
    /// be reconciled again.
    private func buildPendingIndexes(of storage: CollectionTable, chunk: Int) async throws -> Bool {
        for pending in storage.indexes where pending.state == .building {
            guard case .build(let index) = try await claimBuild(of: pending, in: storage) else {
                if storage.indexes.contains(where: { $0.definition == pending.definition }) { continue }
                return false
            }
            do {
                indexBuildsRun.add(1, ordering: .relaxed)
                try await buildIndex(index, of: storage, chunk: chunk)
            } catch {
                _ = try await writer.submit(
                    estimatedBytes: 0, exclusive: true,
                    rollBack: indexRestorer(for: storage, reopening: [index])
                ) { [self] transaction in
                    try transaction.dropDatabase(index.database)
                    storage.replaceIndexes { list in list.removeAll { $0.name == index.name } }
                    try writeSchema(of: storage, in: &transaction)
                }
                let reason = (error as? DataStoreError)?.message ?? "\(error)"
                throw DataStoreError(
                    (error as? DataStoreError)?.code ?? .storage,
                    "index \(index.name) on \(storage.name) cannot be built from the stored records, "
                        + "so it was not added: \(reason)", underlying: error)
            }
        }
        return true
    }

    /// The process's storage for collection `name`, created from `_meta` on first use.
    func registeredStorage(_ name: String, idField: String) throws -> CollectionTable {
        if let storage = collections.withLock({ $0[name] }) {
            guard storage.idField == idField else {
                throw DataStoreError(
                    .schemaMismatch, "collection \(name) is identified by \(storage.idField), not \(idField)")
            }
            return storage
        }
        let stored = try environment.read { try StoreSchema.read(name, in: $0, meta: meta) }
        if let stored, stored.idField != idField {
            throw DataStoreError(
                .schemaMismatch,
                "collection \(name) is stored with id field \(stored.idField), "
                    + "but was declared with \(idField)")
        }
        let readOnly = environment.configuration.flags.contains(.readOnly)
        let records: Database
        do {
            records = try openStoreDatabase(
                named: StoreSchema.recordsDatabaseName(name), options: readOnly ? [] : .create)
        } catch let error as LMDBError {
            guard error.code == .notFound else { throw error }
            throw DataStoreError(
                .notFound, "no collection \(name) in the read-only store at \(path)", underlying: error)
        }
        // Under the watch's lock, so that no reload of the registered collections runs between
        // this read of the stored schema and the registration.
        schemaWatch.lock.lock()
        defer { schemaWatch.lock.unlock() }
        let schema = try environment.read { try StoreSchema.read(name, in: $0, meta: meta) }
        var indexes: [IndexTable] = []
        for index in schema?.indexes ?? [] {
            let database = try openStoreDatabase(named: StoreSchema.indexDatabaseName(name, index.definition.name))
            indexes.append(
                IndexTable(
                    definition: index.definition, database: database, state: index.state,
                    declared: index.declared ?? true, owner: index.owner))
        }
        if indexes.contains(where: isForeignSnapshotBuild) { schemaWatch.seesForeignBuilds = true }
        let storage = CollectionTable(
            name: name, idField: idField, records: records, indexes: indexes, schemaWatch: schemaWatch,
            maxDocumentBytes: maxDocumentBytes)
        return collections.withLock { registered in
            if let existing = registered[name] { return existing }
            registered[name] = storage
            return storage
        }
    }

    /// Adds the entries of every record to `index`, then marks it ready: from one snapshot in key
    /// order (``buildFromSnapshot(_:of:)``), or for a unique index `chunk` records per commit, each
    /// record checked against the entries before it.
    private func buildIndex(_ pending: IndexTable, of storage: CollectionTable, chunk: Int) async throws {
        var chunked = pending
        if !pending.definition.unique {
            do {
                return try await buildFromSnapshot(pending, of: storage)
            } catch {
                // Another process's writes maintained the index meanwhile (and may have made an
                // append fail): build it again in chunks; any other failure is the build's.
                let disturbed = try error is SnapshotBuildDisturbed || snapshotBuildWasDisturbed(pending, of: storage)
                guard disturbed else { throw error }
                chunked = try await restartInChunks(pending, of: storage)
            }
        }
        let index = chunked
        var after: [UInt8]? = nil
        while true {
            let resume = after
            let (last, _) = try await writer.submit(estimatedBytes: chunk * 64) { transaction -> [UInt8]? in
                try storage.indexChunk(index, after: resume, limit: chunk, in: &transaction)
            }
            guard let last else { break }
            after = last
        }
        _ = try await writer.submit(estimatedBytes: 0, exclusive: true, rollBack: indexRestorer(for: storage)) {
            [self, index] transaction in
            try transaction.delete(StoreSchema.disturbedBuildKey(storage.name, index.name), in: meta)
            storage.replaceIndexes { list in
                for position in list.indices where list[position].name == index.name { list[position].markReady() }
            }
            try writeSchema(of: storage, in: &transaction)
        }
    }
}

extension DataStore {
    /// Puts back `storage`'s index list as it is now: the roll-back of a schema change set, which
    /// changes the list inside its transaction. Taken before the change set is submitted, under
    /// the store's schema lock, so no other schema change comes between.
    ///
    /// `mdb_drop` closes a dropped database's handle at once, even when its transaction then
    /// fails; so the indexes in `dropped` are put back with handles opened again by name (on the
    /// writer thread, between transactions). One that cannot be opened is left out.
    func indexRestorer(for storage: CollectionTable, reopening dropped: [IndexTable] = []) -> @Sendable () -> Void {
        let before = storage.indexes
        let droppedNames = Set(dropped.map(\.name))
        return { [self] in
            // A reload inside the failed transaction may be undone here: the next one reloads.
            schemaWatch.forget()
            let restored = before.compactMap { index -> IndexTable? in
                guard droppedNames.contains(index.name) else { return index }
                let name = StoreSchema.indexDatabaseName(storage.name, index.name)
                guard let database = try? openStoreDatabase(named: name) else { return nil }
                return IndexTable(
                    definition: index.definition, database: database, state: index.state,
                    declared: index.declared, owner: index.owner)
            }
            storage.replaceIndexes { $0 = restored }
        }
    }
}

extension CollectionTable {
    /// The schema `_meta` records for this collection.
    var schema: StoreSchema.Collection {
        StoreSchema.Collection(
            idField: idField,
            indexes: indexes.map {
                StoreSchema.Index(
                    definition: $0.definition, state: $0.state, declared: $0.declared ? nil : false,
                    owner: $0.state == .building ? $0.owner : nil)
            })
    }
}

extension DataStore {
    /// Opens one of the store's LMDB databases, naming ``Options/maxDatabases`` when the store
    /// already holds as many as it allows.
    /// - Throws: ``/DataStoreCore/DataStoreError/Code/storage`` past the limit; otherwise the `LMDBError`.
    func openStoreDatabase(named name: String, options: Database.Options = []) throws -> Database {
        let opened: Result<Database, LMDBError> = Result { () throws(LMDBError) in
            try environment.openDatabase(named: name, options: options)
        }
        switch opened {
        case .success(let database):
            return database
        case .failure(let error) where error.code == .databasesFull:
            throw DataStoreError(
                .storage,
                "the store at \(path) holds as many databases as it may "
                    + "(DataStore.Options.maxDatabases = \(environment.configuration.maxDatabases): one per collection "
                    + "and one per index); opening \(name) needs a larger maxDatabases", underlying: error)
        case .failure(let error):
            throw error
        }
    }
}
