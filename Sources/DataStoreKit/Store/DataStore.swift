import DataStoreCore
import Foundation
import LMDB
import Synchronization
import DataStoreEngine

/// An embedded document store: one LMDB environment (a directory) holding many collections, each
/// with its secondary indexes, and one writer that commits every change in batches.
///
/// ```swift
/// let store = try DataStore.open(path: "/var/lib/myapp/store")
/// let messages = try await store.collection(Message.self, indexes: [IndexDefinition("created_ts")])
/// try await messages.add(object: message)
/// let recent = try await messages.query(params: ["created_ts >=": 1437108600], options: nil)
/// ```
///
/// A path is open at most once per process: opening it again returns the same store.
public final class DataStore: Sendable {
    /// How a store is opened.
    public struct Options: Sendable {
        /// The initial map size; the writer grows it when full (up to `writerLimits.maxMapSize`).
        public var mapSize: Int
        /// When a save is acknowledged (default: durably on disk).
        public var durability: Durability
        /// Batch, queue and map-growth bounds of the writer.
        public var writerLimits: WriterLimits
        /// The most concurrent readers across processes.
        public var maxReaders: Int
        /// The most LMDB databases the store may hold: two for the store's own records (`_meta`
        /// and the change log `_changes`), one per collection and one per index. Every nested transaction (the writer uses them to isolate
        /// a change set that failed) allocates and clears a table of this size, so it is kept
        /// modest; past it, declaring a collection or an index fails with
        /// ``/DataStoreCore/DataStoreError/Code/storage`` naming this option.
        public var maxDatabases: Int
        /// Open read-only: every write fails with ``/DataStoreCore/DataStoreError/Code/storage``.
        public var readOnly: Bool
        /// The oldest a ``Context``'s snapshot may get, `nil` for no cap. A snapshot keeps every
        /// page written after it from being reused, so the data file grows by what is written
        /// meanwhile; past the cap the snapshot is ended, and the context's next read throws
        /// ``/DataStoreCore/DataStoreError/Code/snapshotExpired`` naming its age and the cap (docs/concurrency.md).
        public var maxSnapshotAge: Duration? = .seconds(60)
        /// Whether every commit records its changes for ``DataStore/changes(after:)`` and
        /// observations, how long they are kept, and how soon other processes' commits are seen
        /// (docs/changes.md).
        public var changeFeed = ChangeFeedOptions()
        /// The largest document a write takes, in bytes of its encoded record (64 MiB by default,
        /// as on PostgreSQL); a larger one fails with ``/DataStoreCore/DataStoreError/Code/tooLarge``
        /// before anything is queued.
        public var maxDocumentBytes = DocumentSize.defaultLimit

        /// Defaults: a 1 GiB initial map, durable saves, 126 readers, 128 databases (and context
        /// snapshots capped at 60 s: ``maxSnapshotAge``).
        public init(
            mapSize: Int = 1 << 30,
            durability: Durability = .durable,
            writerLimits: WriterLimits = WriterLimits(),
            maxReaders: Int = 126,
            maxDatabases: Int = 128,
            readOnly: Bool = false
        ) {
            self.mapSize = mapSize
            self.durability = durability
            self.writerLimits = writerLimits
            self.maxReaders = maxReaders
            self.maxDatabases = maxDatabases
            self.readOnly = readOnly
        }
    }

    /// The LMDB environment under the store: engine room only, so no record is written around
    /// its indexes.
    let environment: Environment
    /// The store's one writer.
    let writer: Writer
    let meta: Database
    let collections = Mutex<[String: CollectionTable]>([:])
    let schemaLock = AsyncLock()
    /// What this process knows of the stored schemas, which other processes may change.
    let schemaWatch: SchemaWatch
    /// This open of the store, as recorded on the indexes it builds.
    let buildOwner = IndexBuildOwner.current()
    /// Index builds this open of the store ran (tests count them across processes).
    let indexBuildsRun = Atomic<Int>(0)
    /// The change feed's log, and the signal its readers wait on.
    let changeLog: ChangeLog
    /// The live query observations, fed from the log.
    let observations: ObservationCenter
    /// ``Options/maxSnapshotAge``.
    let maxSnapshotAge: Duration?
    /// ``Options/maxDocumentBytes``.
    let maxDocumentBytes: Int
    /// How indexes are built from stored records (tests bound the memory and pause builds).
    let indexBuildSettings = Mutex(IndexBuildSettings())
    /// A directory to delete once the store closes or is released (in-memory stores).
    private let temporaryDirectory: String?

    private static let openStores = Mutex<[String: WeakStore]>([:])

    private init(
        environment: Environment, meta: Database, changeLog: ChangeLog, options: Options,
        temporaryDirectory: String?
    ) {
        self.environment = environment
        self.meta = meta
        self.temporaryDirectory = temporaryDirectory
        self.maxSnapshotAge = options.maxSnapshotAge
        self.maxDocumentBytes = max(1, options.maxDocumentBytes)
        self.changeLog = changeLog
        self.observations = ObservationCenter(log: changeLog)
        let signal = changeLog.signal
        let schemaWatch = SchemaWatch(environment: environment)
        self.schemaWatch = schemaWatch
        // An idle writer checks for expired snapshots twice per cap, so one lives at most 1.5 caps.
        self.writer = Writer(
            environment: environment, limits: options.writerLimits, durability: options.durability,
            snapshotCheckInterval: options.maxSnapshotAge.map { $0 / 2 },
            changeLog: changeLog.database == nil || options.readOnly ? nil : changeLog,
            transactionHook: Self.schemaHook(schemaWatch),
            // The environment's last id, not the batch's: a batch that wrote nothing commits as
            // no transaction, and waking readers for an id that never appears would make them spin.
            afterCommit: { _, _ in signal.committed((try? environment.info().lastTransactionID) ?? 0) },
            afterClose: { signal.close() })
        schemaWatch.attach(self)
    }

    deinit {
        writer.close()
        removeTemporaryDirectory()
    }

    /// The newest store format this build reads and writes (`_meta`'s format version; a store is
    /// written in it once it holds a covering index) and the record format inside it, for tools
    /// that report what they read and write (docs/encoding.md).
    public static var formatVersions: (store: Int, record: Int) {
        (StoreSchema.formatVersion, Int(RecordCodec.formatVersion))
    }

    /// Opens the store in the directory at `path` (creating it), or returns the store already
    /// open at that path in this process. A store that was closed is not returned: a new one on
    /// the same environment replaces it (the closed object still reads, but its observers see no
    /// commits made through the new one).
    ///
    /// - Throws: ``/DataStoreCore/DataStoreError`` `.storage` wrapping an `LMDBError` that names the path (missing,
    ///   unwritable, not an LMDB environment), or `.unsupportedFormat` for a store written by a
    ///   newer format version.
    public static func open(path: String, options: Options = Options()) throws -> DataStore {
        try open(path: path, options: options, temporaryDirectory: nil)
    }

    /// Opens a store that lives only as long as this object, in memory: it needs no directory of
    /// the caller's and leaves nothing behind (the seed's in-memory stack).
    ///
    /// Its files are made in ``memoryDirectory`` — `/dev/shm`, a RAM-backed file system, where it
    /// is present and has room, else the temporary directory — and deleted when the store closes
    /// (``close()``) or is released, whichever comes first.
    public static func inMemory(options: Options = Options(durability: .none)) throws -> DataStore {
        let directory = memoryDirectory + "/datastorekit-memory-\(UUID().uuidString)"
        return try open(path: directory, options: options, temporaryDirectory: directory)
    }

    /// Where ``inMemory(options:)`` puts its stores: `/dev/shm` when it is a writable directory
    /// with at least 64 MiB free (containers often give it only 64 MiB in all), else the
    /// temporary directory (`TMPDIR`, `/tmp`), which may be on disk.
    public static var memoryDirectory: String {
        var status = statvfs()
        let shm = "/dev/shm"
        if access(shm, W_OK | X_OK) == 0, statvfs(shm, &status) == 0,
            UInt64(status.f_bavail) * UInt64(status.f_frsize) >= 64 << 20
        {
            return shm
        }
        var temporary = NSTemporaryDirectory()
        while temporary.count > 1 && temporary.hasSuffix("/") { temporary.removeLast() }
        return temporary
    }

    private static func open(path: String, options: Options, temporaryDirectory: String?) throws -> DataStore {
        var flags: Environment.Flags = options.readOnly ? .readOnly : []
        switch options.durability {
        // Durable mode is LMDB's standard commit: data synced, then the meta page written through
        // an O_DSYNC descriptor (Writer+Acknowledgement says why no pipelined meta sync).
        case .durable: break
        case .relaxed: flags.insert(.noMetaSync)
        case .none: flags.insert(.noSync)
        }
        let configuration = Environment.Configuration(
            mapSize: options.mapSize, maxDatabases: options.maxDatabases, maxReaders: options.maxReaders, flags: flags)
        return try openStores.withLock { stores in
            let environment: Environment
            do {
                environment = try Environment.open(path: path, configuration: configuration)
            } catch let error as LMDBError {
                throw DataStoreError(
                    .storage, "cannot open the store at \(path): \(error.context): \(error.reason)",
                    underlying: error)
            }
            // A store closed while its object lives is replaced by a fresh one on the same
            // environment: its writer has stopped, and LMDB serialises it with the new one.
            if let store = stores[environment.path]?.store, !store.writer.isClosed { return store }
            // Reader slots of processes that died would pin old pages and let the file grow.
            _ = try environment.clearStaleReaders()
            let meta = try metaDatabase(environment, path: path, options: options)
            let database = try changeDatabase(environment, options: options)
            let changeLog: ChangeLog
            do {
                changeLog = try ChangeLog(
                    environment: environment, database: database, meta: meta, options: options.changeFeed)
            } catch let error as LMDBError {
                throw cannotCreate(path, error)
            }
            let store = DataStore(
                environment: environment, meta: meta, changeLog: changeLog, options: options,
                temporaryDirectory: temporaryDirectory)
            stores[environment.path] = WeakStore(store: store)
            return store
        }
    }

    /// The store's `_meta` database, its format checked: created unless the store is read-only.
    private static func metaDatabase(_ environment: Environment, path: String, options: Options) throws -> Database {
        let meta: Database
        do {
            meta = try environment.openDatabase(named: "_meta", options: options.readOnly ? [] : .create)
        } catch  where error.code == .databasesFull {
            throw DataStoreError(
                .storage,
                "the store at \(path) cannot open its _meta database with "
                    + "DataStore.Options.maxDatabases = \(options.maxDatabases)", underlying: error)
        } catch  where error.code == .notFound {
            meta = try emptyStoreMeta(environment, path: path, notFound: error)
        } catch {
            throw cannotCreate(path, error)
        }
        do {
            try StoreSchema.checkFormat(environment: environment, meta: meta)
        } catch let error as LMDBError {
            throw cannotCreate(path, error)
        }
        return meta
    }

    /// The change log's database: created unless the feed is off or the store read-only, and
    /// `nil` when it does not exist (a read-only store no writer with the feed has opened).
    private static func changeDatabase(_ environment: Environment, options: Options) throws(DataStoreError) -> Database?
    {
        guard options.changeFeed.isEnabled else { return nil }
        do {
            return try environment.openDatabase(named: "_changes", options: options.readOnly ? [] : .create)
        } catch  where error.code == .notFound && options.readOnly {
            return nil
        } catch  where error.code == .databasesFull {
            throw DataStoreError(
                .storage,
                "the store at \(environment.path) cannot open its _changes database with "
                    + "DataStore.Options.maxDatabases = \(options.maxDatabases)", underlying: error)
        } catch {
            throw cannotCreate(environment.path, error)
        }
    }

    private static func cannotCreate(_ path: String, _ error: LMDBError) -> DataStoreError {
        DataStoreError(
            .storage, "cannot create the store at \(path): \(error.context): \(error.reason)", underlying: error)
    }

    /// The `_meta` stand-in of a read-only open of an environment that holds no database at all:
    /// a store whose first open was cut short after LMDB made its files and before the store's
    /// first commit. It is an empty store, so it gets the main database, which then holds no key
    /// and whose keys (database names) never look like `_meta`'s.
    private static func emptyStoreMeta(_ environment: Environment, path: String, notFound: LMDBError) throws -> Database
    {
        guard try environment.statistics().entries == 0 else {
            throw DataStoreError(
                .storage,
                "\(path) holds an LMDB environment that is not a DataStoreKit store "
                    + "(no _meta database)", underlying: notFound)
        }
        return try environment.openDatabase(named: nil)
    }

    /// The directory the store lives in.
    public var path: String { environment.path }

    /// Stops the writer after it commits what is queued, then ends every change feed and
    /// observation (feeds after the events of those last commits). Later writes fail with
    /// ``/DataStoreCore/DataStoreError/Code/closed``; reads go on while the object lives.
    public func close() {
        writer.close()
        removeTemporaryDirectory()
    }

    /// Deletes an in-memory store's files. The writer may still be finishing its last batch:
    /// unlinking open files is safe on Linux, and the map stays valid until the environment closes.
    private func removeTemporaryDirectory() {
        guard let temporaryDirectory, FileManager.default.fileExists(atPath: temporaryDirectory) else { return }
        // Called from close() and deinit, which cannot report: the data dies with the store either
        // way, and a leftover would be in a temporary place.
        try? FileManager.default.removeItem(atPath: temporaryDirectory)
    }
}

private struct WeakStore: @unchecked Sendable {
    // @unchecked Sendable: read and written only under `DataStore.openStores`' lock.
    weak var store: DataStore?
}
