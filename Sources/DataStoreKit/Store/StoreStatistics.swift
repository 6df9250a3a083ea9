public import DataStoreCore
import LMDB
import DataStoreEngine

/// Counts and sizes of a store, for `datastore stats` and for monitoring.
public struct StoreStatistics: Sendable, Hashable {
    /// One collection.
    public struct Collection: Sendable, Hashable {
        /// The collection's name.
        public var name: String
        /// The field holding each object's id.
        public var idField: String
        /// The number of records.
        public var documents: Int
        /// Bytes of pages its records use.
        public var bytes: Int
        /// Its indexes.
        public var indexes: [Index]
    }

    /// One secondary index.
    public struct Index: Sendable, Hashable {
        /// The declaration.
        public var definition: IndexDefinition
        /// `"ready"`, or `"building"` while it is filled from existing records.
        public var state: String
        /// `false` when the application's last declaration of the collection left this index out:
        /// it is kept, maintained and used until dropped on purpose (see ``/DataStoreEngine/UndeclaredIndexes``).
        public var declared: Bool
        /// The number of entries (one per document, or per distinct element for multi-value).
        public var entries: Int
        /// Bytes of pages it uses.
        public var bytes: Int
    }

    /// A read transaction open on the store, in any process. Its snapshot keeps the pages written
    /// after it from being reused, so while it lives the data file grows by what is written.
    public struct Reader: Sendable, Hashable {
        /// The process holding it.
        public var processID: Int32
        /// Whether that process is this one.
        public var isThisProcess: Bool
        /// The commit (transaction id) its snapshot sees.
        public var snapshotID: Int
        /// Commits made since its snapshot: `lastTransactionID - snapshotID`.
        public var commitsBehind: Int
        /// How long its snapshot has been open: known for this process's long-lived snapshots
        /// (contexts, `Environment.beginRead`), `nil` for short reads and for other processes
        /// (LMDB does not record when a reader began).
        public var age: Duration?
        /// What holds it ("a Context's snapshot"), where known (as `age`).
        public var holder: String?
    }

    /// The store's on-disk format version.
    public var formatVersion: Int
    /// The collections, by name.
    public var collections: [Collection]
    /// The size of the memory map, which is also the largest the data file may grow to before
    /// the writer grows the map.
    public var mapSize: Int
    /// The id of the last committed write transaction.
    public var lastTransactionID: Int
    /// The size of the reader table (slots across every process).
    public var maxReaders: Int
    /// Reader slots in use, across every process (including reset, reusable ones).
    public var readersInUse: Int
    /// Bytes of the data file in use.
    public var bytesInUse: Int
    /// The read transactions open on the store (slots kept by reset transactions, which read
    /// nothing, are counted in ``readersInUse`` only), oldest snapshot first.
    public var readers: [Reader]
}

extension DataStore {
    /// Collections with document counts, indexes with entry counts and states, map size and use,
    /// readers and format version, all from one snapshot.
    /// - Complexity: O(collections + indexes).
    public func statistics() throws -> StoreStatistics {
        // Another process may have changed the indexes (an index it builds is `building`).
        refreshSchemasForRead()
        var collections: [StoreStatistics.Collection] = []
        for name in try collectionNames() {
            let storage = try storage(named: name)
            let entry = try environment.read { transaction in
                let records = try transaction.statistics(of: storage.records)
                let indexes = try storage.indexes.map { index in
                    let stats = try transaction.statistics(of: index.database)
                    return StoreStatistics.Index(
                        definition: index.definition, state: index.state.rawValue,
                        declared: index.declared, entries: stats.entries, bytes: stats.bytesUsed)
                }
                return StoreStatistics.Collection(
                    name: name, idField: storage.idField, documents: records.entries,
                    bytes: records.bytesUsed, indexes: indexes)
            }
            collections.append(entry)
        }
        let format = try environment.read { try $0.value(forKey: StoreSchema.formatKey, in: meta) }
        // The reader table before the info, so no snapshot listed is newer than the last commit.
        let readers = try environment.readers()
        let info = try environment.info()
        return StoreStatistics(
            formatVersion: Int(format?.first ?? 0), collections: collections,
            mapSize: info.mapSize, lastTransactionID: info.lastTransactionID,
            maxReaders: info.maxReaders, readersInUse: info.readersInUse,
            bytesInUse: try environment.bytesInUse(),
            readers: Self.activeReaders(readers, lastCommit: info.lastTransactionID))
    }

    /// The readers that hold a snapshot, oldest snapshot first.
    private static func activeReaders(_ slots: [Environment.Reader], lastCommit: Int) -> [StoreStatistics.Reader] {
        slots.compactMap { slot in
            slot.snapshotID.map { snapshot in
                StoreStatistics.Reader(
                    processID: slot.processID, isThisProcess: slot.isThisProcess, snapshotID: snapshot,
                    commitsBehind: max(0, lastCommit - snapshot), age: slot.age, holder: slot.label)
            }
        }.sorted { ($0.snapshotID, $0.processID) < ($1.snapshotID, $1.processID) }
    }

    /// The stored collection `name` as plain documents, with the id field and indexes it was
    /// stored with (for tools that do not know the application's types).
    /// - Throws: ``/DataStoreCore/DataStoreError`` `.notFound` when there is no such collection.
    public func documentCollection(_ name: String) async throws -> StoreCollection<Document> {
        let storage = try storage(named: name)
        return StoreCollection(store: self, storage: storage, mapping: .documents(idField: storage.idField))
    }

    /// The storage of a collection known to `_meta`.
    func storage(named name: String) throws -> CollectionTable {
        if let storage = collections.withLock({ $0[name] }) { return storage }
        guard let stored = try environment.read({ try StoreSchema.read(name, in: $0, meta: meta) }) else {
            throw DataStoreError(.notFound, "no collection \(name) in the store at \(path)")
        }
        return try registeredStorage(name, idField: stored.idField)
    }
}
