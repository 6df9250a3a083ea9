import DataStoreCore
import LMDB

extension DataStore {
    /// Whether `index` is built from a snapshot by another process: this process's writes
    /// maintain it directly, and must say so (``StoreSchema/disturbedBuildKey(_:_:)``).
    func isForeignSnapshotBuild(_ index: IndexTable) -> Bool {
        index.state == .building && !index.definition.unique && index.owner != nil && index.owner != buildOwner
    }

    /// Records, inside a write transaction of this process, that it may write the collections
    /// whose indexes other processes build from snapshots. (Any write transaction, so that the
    /// hook need not know which collections its change sets touch.)
    func markForeignBuilds(in transaction: inout WriteTransaction) throws {
        for storage in collections.withLock({ Array($0.values) }) {
            for index in storage.indexes where isForeignSnapshotBuild(index) {
                guard let owner = index.owner else { continue }
                try transaction.put(
                    Array(owner.token.utf8), forKey: StoreSchema.disturbedBuildKey(storage.name, index.name), in: meta)
            }
        }
    }

    /// Whether another process wrote during this open's snapshot build of `index`.
    func snapshotBuildWasDisturbed(
        _ index: IndexTable, of storage: CollectionTable,
        in transaction: borrowing some ReadableTransaction & ~Copyable
    ) throws -> Bool {
        let key = StoreSchema.disturbedBuildKey(storage.name, index.name)
        return try transaction.value(forKey: key, in: meta) == Array(buildOwner.token.utf8)
    }

    /// Whether another process wrote during this open's snapshot build of `index`, as stored now.
    func snapshotBuildWasDisturbed(_ index: IndexTable, of storage: CollectionTable) throws -> Bool {
        try environment.read { try snapshotBuildWasDisturbed(index, of: storage, in: $0) }
    }

    /// Turns a disturbed snapshot build of `index` into a build in chunks: empties the index and
    /// forgets its log and disturbance, so that from this commit on every process's writes
    /// maintain it directly (as for a unique index), which a build in chunks allows for.
    func restartInChunks(_ index: IndexTable, of storage: CollectionTable) async throws -> IndexTable {
        let (restarted, _) = try await writer.submit(
            estimatedBytes: 0, exclusive: true, rollBack: indexRestorer(for: storage)
        ) { [self] transaction -> IndexTable in
            try transaction.empty(index.database)
            try transaction.delete(StoreSchema.disturbedBuildKey(storage.name, index.name), in: meta)
            var restarted = index
            restarted.buildLog = nil
            let entry = restarted
            storage.replaceIndexes { list in
                for position in list.indices where list[position].name == entry.name { list[position].buildLog = nil }
            }
            return entry
        }
        return restarted
    }
}
