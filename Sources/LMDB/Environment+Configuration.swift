internal import CLMDB

extension Environment {
    /// How an environment is opened. Every environment is opened with `MDB_NOTLS` in addition
    /// to these flags (see ``Environment``).
    public struct Configuration: Sendable, Hashable {
        /// The size of the memory map in bytes, which is also the largest the data file may grow
        /// to. Rounded up to a whole number of pages. Grow it later with
        /// ``Environment/setMapSize(_:waitingAtMost:)``.
        public var mapSize: Int
        /// The most named databases the environment may hold.
        public var maxDatabases: Int
        /// The most concurrent read transactions across every process using the environment.
        public var maxReaders: Int
        /// Flags that trade durability or behaviour for speed.
        public var flags: Flags
        /// File mode for newly created `data.mdb` and `lock.mdb` files.
        public var fileMode: UInt32
        /// Create the directory (and its parents) when it does not exist.
        public var createDirectory: Bool

        /// A configuration suited to a store: 1 GiB map, 128 named databases, 126 readers.
        public init(
            mapSize: Int = 1 << 30,
            maxDatabases: Int = 128,
            maxReaders: Int = 126,
            flags: Flags = [],
            fileMode: UInt32 = 0o644,
            createDirectory: Bool = true
        ) {
            self.mapSize = mapSize
            self.maxDatabases = maxDatabases
            self.maxReaders = maxReaders
            self.flags = flags
            self.fileMode = fileMode
            self.createDirectory = createDirectory
        }
    }

    /// Environment flags. `MDB_NOTLS` is always added and is not listed here.
    public struct Flags: OptionSet, Sendable, Hashable {
        public let rawValue: UInt32
        public init(rawValue: UInt32) { self.rawValue = rawValue }

        /// Do not sync data on commit (`MDB_NOSYNC`). A system crash may undo the last
        /// transactions, or with a file system that reorders writes, corrupt the database.
        public static let noSync = Flags(rawValue: UInt32(MDB_NOSYNC))
        /// Sync data but not the meta page on commit (`MDB_NOMETASYNC`). A system crash may undo
        /// the last transaction; the database stays intact.
        public static let noMetaSync = Flags(rawValue: UInt32(MDB_NOMETASYNC))
        /// Open read-only (`MDB_RDONLY`): every write transaction is refused.
        public static let readOnly = Flags(rawValue: UInt32(MDB_RDONLY))
        /// Turn off OS read-ahead (`MDB_NORDAHEAD`), for databases larger than RAM.
        public static let noReadAhead = Flags(rawValue: UInt32(MDB_NORDAHEAD))
    }
}
