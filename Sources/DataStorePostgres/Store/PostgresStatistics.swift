public import DataStoreEngine

/// Counts and sizes of a ``PostgresStore``, for `datastore stats` and for monitoring
/// (``PostgresStore/statistics()``).
public struct PostgresStatistics: Sendable, Hashable {
    /// One collection.
    public struct Collection: Sendable, Hashable {
        /// The collection's name.
        public var name: String
        /// The field holding each object's id.
        public var idField: String
        /// The table holding it (`dsk_c<n>`).
        public var table: String
        /// The number of rows.
        public var documents: Int
        /// Bytes on disk of its table, with its indexes and TOAST data.
        public var bytes: Int
        /// Its indexes.
        public var indexes: [Index]
    }

    /// One secondary index.
    public struct Index: Sendable, Hashable {
        /// The declaration.
        public var definition: IndexDefinition
        /// `false` when the application's last declaration of the collection left it out (it is
        /// kept and maintained, as on LMDB).
        public var declared: Bool
        /// The number of entries (rows with a key, or side-table rows for multi-value).
        public var entries: Int
        /// Bytes on disk of its b-tree (or side table).
        public var bytes: Int
    }

    /// The server's version (`server_version`).
    public var serverVersion: String
    /// The database connected to.
    public var database: String
    /// The collections, by name.
    public var collections: [Collection]
    /// The change feed's horizon: every commit up to it has ended (``PostgresStore/changes(after:)``).
    public var lastCommit: Int
    /// Commits the change feed retains.
    public var retainedCommits: Int
}
