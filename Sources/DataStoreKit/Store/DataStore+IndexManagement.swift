import DataStoreCore
import DataStoreEngine

extension DataStore {
    /// Adds `definition` to the stored collection `name` and builds it from the records before
    /// returning; the collection's other indexes are left as they are. `buildChunk` is the number
    /// of records per commit of a unique index's build (any other is built from one snapshot).
    ///
    /// - Throws: ``/DataStoreCore/DataStoreError`` `.notFound` when there is no such collection; `.schemaMismatch`
    ///   for an invalid definition or one whose name is taken by another definition;
    ///   `.invalidValue` / `.uniqueViolation` when stored records break it (it is then not added).
    public func addIndex(_ definition: IndexDefinition, to name: String, buildChunk: Int = 1_000) async throws {
        let storage = try storage(named: name)
        if let existing = storage.indexes.first(where: { $0.name == definition.name }),
            existing.definition != definition
        {
            throw DataStoreError(
                .schemaMismatch,
                "collection \(name) already has an index \(definition.name) (\(existing.definition)); "
                    + "drop it first to redefine it")
        }
        _ = try await openCollection(
            name, idField: storage.idField, indexes: [definition], buildChunk: buildChunk, mode: .adding)
    }

    /// Drops the index `indexName` of the stored collection `name`, with its data. This, and a
    /// declaration made with ``/DataStoreEngine/UndeclaredIndexes/drop``, are the only ways an index is dropped.
    ///
    /// - Returns: The definition of the dropped index.
    /// - Throws: ``/DataStoreCore/DataStoreError`` `.notFound` naming the collection's indexes when it has no
    ///   such index; `.storage` when the store cannot be written.
    @discardableResult
    public func dropIndex(named indexName: String, from name: String) async throws -> IndexDefinition {
        let storage = try storage(named: name)
        let current = storage.indexes
        guard let dropped = current.first(where: { $0.name == indexName }) else {
            let names = current.map(\.name)
            throw DataStoreError(
                .notFound,
                "collection \(name) has no index \(indexName); "
                    + (names.isEmpty
                        ? "it has no secondary indexes" : "its indexes are " + names.joined(separator: ", ")))
        }
        _ = try await openCollection(
            name, idField: storage.idField, indexes: [], buildChunk: 1_000,
            mode: .dropping(indexName))
        return dropped.definition
    }

    /// Declares `indexes` on the stored collection `name`, keeping its id field, as
    /// ``collection(_:mapping:indexes:indexBuildChunk:undeclaredIndexes:)`` does: new ones are
    /// built, redefined ones rebuilt, and those left out kept or dropped as `undeclaredIndexes` says.
    public func redeclareIndexes(
        _ indexes: [IndexDefinition], on name: String, buildChunk: Int = 1_000,
        undeclaredIndexes: UndeclaredIndexes = .keep
    ) async throws {
        let storage = try storage(named: name)
        _ = try await openCollection(
            name, idField: storage.idField, indexes: indexes, buildChunk: buildChunk,
            mode: .declaration(undeclaredIndexes))
    }
}

extension DataStore {
    /// Fills `index` (not unique) from one snapshot of the records and marks it ready, while
    /// writes go on.
    ///
    /// From the first step writes leave the index alone and note the records they change in a
    /// log. Then every entry of the snapshot is read on the caller's task and sorted in bounded
    /// memory (``IndexEntrySorter``), appended in key order in a few large commits, and the last
    /// step, alone in its commit, redoes the entries of the records the log noted and marks the
    /// index ready, so no write made meanwhile is lost.
    func buildFromSnapshot(_ index: IndexTable, of storage: CollectionTable) async throws {
        let settings = indexBuildSettings.withLock { $0 }
        let log = try await startBuildLog(of: index, in: storage)
        try await settings.pause?(.logStarted)
        let sorter = IndexEntrySorter(memoryBound: settings.memoryBound, directory: path)
        try environment.read { transaction in
            log.snapshotTaken(at: transaction.snapshotID)
            try storage.extractEntries(of: index, in: transaction, into: sorter)
        }
        try await settings.pause?(.extracted(runs: sorter.spilledRuns, largestRunBytes: sorter.largestRunBytes))
        // The last batch goes in the commit that marks the index ready: a small build costs one commit.
        var held: (run: EntryRun, range: Range<Int>)?
        var batches = 0
        try await sorter.drain(batchBytes: settings.batchBytes) { run, range in
            if let (heldRun, heldRange) = held {
                _ = try await writer.submit(estimatedBytes: settings.batchBytes) { transaction in
                    try storage.appendEntries(heldRun, heldRange, to: index, in: &transaction)
                }
                try await settings.pause?(.appended(batches))
                batches += 1
            }
            held = (run, range)
        }
        let last = held
        _ = try await writer.submit(
            estimatedBytes: settings.batchBytes, exclusive: true, rollBack: indexRestorer(for: storage)
        ) { [self] transaction in
            // Under the write lock: no other process's write can come between this and the commit.
            if try snapshotBuildWasDisturbed(index, of: storage, in: transaction) { throw SnapshotBuildDisturbed() }
            if let last { try storage.appendEntries(last.run, last.range, to: index, in: &transaction) }
            try storage.applyBuildLog(log, to: index, in: &transaction)
            storage.replaceIndexes { list in
                for position in list.indices where list[position].name == index.name {
                    list[position].markReady()
                }
            }
            try writeSchema(of: storage, in: &transaction)
        }
    }

    /// The log of `index`'s build: the one it was registered with, or one started now in a commit
    /// that also empties the index (a build cut short left some entries).
    private func startBuildLog(of index: IndexTable, in storage: CollectionTable) async throws -> IndexBuildLog {
        if let log = index.buildLog { return log }
        let log = IndexBuildLog()
        _ = try await writer.submit(estimatedBytes: 0, exclusive: true, rollBack: indexRestorer(for: storage)) {
            transaction in
            try transaction.empty(index.database)
            storage.replaceIndexes { list in
                for position in list.indices where list[position].name == index.name { list[position].buildLog = log }
            }
        }
        return log
    }
}
