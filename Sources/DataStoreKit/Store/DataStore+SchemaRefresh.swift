import DataStoreCore
import LMDB

extension DataStore {
    /// The writer's hook: every write transaction, before its change sets, brings the registered
    /// collections' index lists up to what is stored (another process may have changed them).
    static func schemaHook(_ watch: SchemaWatch) -> WriteTransactionHook {
        WriteTransactionHook(
            // Only an exclusive change set changes index lists inside its transaction: it holds the
            // lock throughout. A batch of records needs it only to reload (a reload elsewhere
            // cannot meet it: its base is the commit checked, and no commit can come after it
            // while it holds LMDB's write lock).
            enter: { exclusive in if exclusive { watch.lock.lock() } },
            prepare: { transaction in
                watch.beginTransaction()
                // A base this process checked or made, and no foreign build to report: nothing to do.
                if transaction.transactionID - 1 == watch.checkedThrough && !watch.seesForeignBuilds { return true }
                guard let store = watch.store else { return true }
                watch.lock.lock()
                defer { watch.lock.unlock() }
                guard try store.refreshSchemas(before: &transaction) else { return false }
                if watch.seesForeignBuilds { try store.markForeignBuilds(in: &transaction) }
                return true
            },
            committed: { commit, wroteRecords in watch.committed(commit, wroteRecords: wroteRecords) },
            leave: { exclusive in if exclusive { watch.lock.unlock() } })
    }

    /// Reloads the registered collections' schemas inside `transaction` when the stored
    /// generation moved since this process last checked. Returns `false` when that opened a
    /// database handle, which a transaction begun before the open cannot use: it must begin again.
    func refreshSchemas(before transaction: inout WriteTransaction) throws -> Bool {
        let base = transaction.transactionID - 1
        if base == schemaWatch.checkedThrough { return true }
        schemaWatch.generationReads.add(1, ordering: .relaxed)
        let stored = try StoreSchema.generation(in: transaction, meta: meta)
        let opened = schemaWatch.reflects(stored) ? false : try reloadSchemas(in: transaction)
        schemaWatch.confirm(stored, through: base)
        return !opened
    }

    /// ``refreshSchemas(before:)`` for a read about to plan a query, in a snapshot of its own
    /// that ends before the query's begins (so the query's can use any handle opened here). Only
    /// a reload waits for the process's write transaction under way.
    func refreshSchemasForRead() {
        // Planning cannot throw: a store that cannot be read here fails the query's own read,
        // and the watch, not advanced, makes the next plan try again.
        try? environment.read { transaction in
            let snapshot = transaction.snapshotID
            guard snapshot > schemaWatch.checkedThrough else { return }
            schemaWatch.generationReads.add(1, ordering: .relaxed)
            let stored = try StoreSchema.generation(in: transaction, meta: meta)
            if schemaWatch.reflects(stored) { return schemaWatch.confirm(stored, through: snapshot) }
            schemaWatch.lock.lock()
            defer { schemaWatch.lock.unlock() }
            guard snapshot > schemaWatch.checkedThrough, !schemaWatch.reflects(stored) else { return }
            _ = try reloadSchemas(in: transaction)
            schemaWatch.confirm(stored, through: snapshot)
        }
    }

    /// Replaces every registered collection's index list by the one `transaction` sees stored,
    /// keeping the process's own entry (its build log) for an index whose definition is unchanged.
    /// Returns whether it opened a database handle. Runs under the watch's lock.
    private func reloadSchemas(in transaction: borrowing some ReadableTransaction & ~Copyable) throws -> Bool {
        var opened = false
        var foreign = false
        for storage in collections.withLock({ Array($0.values) }) {
            guard let stored = try StoreSchema.read(storage.name, in: transaction, meta: meta) else { continue }
            let current = storage.indexes
            var reloaded: [IndexTable] = []
            for index in stored.indexes {
                if var kept = current.first(where: { $0.definition == index.definition }) {
                    kept.state = index.state
                    kept.declared = index.declared ?? true
                    kept.owner = index.owner
                    if kept.state == .ready { kept.markReady() }
                    reloaded.append(kept)
                    continue
                }
                let name = StoreSchema.indexDatabaseName(storage.name, index.definition.name)
                guard let database = try existingDatabase(named: name) else { continue }
                reloaded.append(
                    IndexTable(
                        definition: index.definition, database: database, state: index.state,
                        declared: index.declared ?? true, owner: index.owner))
                opened = true
            }
            storage.replaceIndexes { $0 = reloaded }
            foreign = foreign || reloaded.contains(where: isForeignSnapshotBuild)
        }
        schemaWatch.seesForeignBuilds = foreign
        return opened
    }

    /// The database `name`, or `nil` when no process holds it any more (dropped after the
    /// snapshot that named it).
    private func existingDatabase(named name: String) throws -> Database? {
        do {
            return try openStoreDatabase(named: name)
        } catch let error as LMDBError where error.code == .notFound {
            return nil
        }
    }

    /// Writes `storage`'s schema inside `transaction`, raising the schema generation, and notes
    /// the generation so this process knows its own change once the transaction commits.
    func writeSchema(of storage: CollectionTable, in transaction: inout WriteTransaction) throws {
        let generation = try StoreSchema.write(storage.schema, for: storage.name, in: &transaction, meta: meta)
        schemaWatch.wrote(generation, in: transaction.transactionID)
    }
}
