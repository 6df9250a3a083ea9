public import DataStoreCore
public import LMDB

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
        /// it is kept, maintained and used until dropped on purpose (see ``UndeclaredIndexes``).
        public var declared: Bool
        /// The number of entries (one per document, or per distinct element for multi-value).
        public var entries: Int
        /// Bytes of pages it uses.
        public var bytes: Int
    }

    /// The store's on-disk format version.
    public var formatVersion: Int
    /// The collections, by name.
    public var collections: [Collection]
    /// The environment's map size and use, readers and last commit.
    public var environment: Environment.Info
    /// Bytes of the data file in use.
    public var bytesInUse: Int
}

extension DataStore {
    /// Collections with document counts, indexes with entry counts and states, map size and use,
    /// readers and format version, all from one snapshot.
    /// - Complexity: O(collections + indexes).
    public func statistics() throws -> StoreStatistics {
        var collections: [StoreStatistics.Collection] = []
        for name in try collectionNames() {
            let storage = try storage(named: name)
            let entry = try environment.read { transaction in
                let records = try transaction.statistics(of: storage.records)
                let indexes = try storage.indexes.map { index in
                    let stats = try transaction.statistics(of: index.database)
                    return StoreStatistics.Index(definition: index.definition, state: index.state.rawValue,
                                                 declared: index.declared, entries: stats.entries, bytes: stats.bytesUsed)
                }
                return StoreStatistics.Collection(name: name, idField: storage.idField, documents: records.entries,
                                                  bytes: records.bytesUsed, indexes: indexes)
            }
            collections.append(entry)
        }
        let format = try environment.read { try $0.value(forKey: StoreSchema.formatKey, in: meta) }
        return StoreStatistics(formatVersion: Int(format?.first ?? 0), collections: collections,
                               environment: try environment.info(), bytesInUse: try environment.bytesInUse())
    }

    /// The stored collection `name` as plain documents, with the id field and indexes it was
    /// stored with (for tools that do not know the application's types).
    /// - Throws: ``DataStoreError`` `.notFound` when there is no such collection.
    public func documentCollection(_ name: String) async throws -> StoreCollection<Document> {
        let storage = try storage(named: name)
        return StoreCollection(store: self, storage: storage, mapping: .documents(idField: storage.idField))
    }

    /// The storage of a collection known to `_meta`.
    func storage(named name: String) throws -> CollectionStorage {
        if let storage = collections.withLock({ $0[name] }) { return storage }
        guard let stored = try environment.read({ try StoreSchema.read(name, in: $0, meta: meta) }) else {
            throw DataStoreError(.notFound, "no collection \(name) in the store at \(path)")
        }
        return try registeredStorage(name, idField: stored.idField)
    }
}

extension ObjectMapping where Object == Document {
    /// The identity mapping: objects are the stored documents themselves.
    public static func documents(idField: String) -> ObjectMapping<Document> {
        ObjectMapping(idField: idField, encode: { $0 }, decode: { $0 }, decodeRecord: { try RecordCodec.decode($0) })
    }
}
