internal import CLMDB
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// An open LMDB environment: one directory holding `data.mdb` and `lock.mdb`.
///
/// Open one with ``open(path:configuration:)``. lmdb.h: "Do not have open an LMDB database
/// twice in the same process at the same time. Not even from a plain open() call — close()ing it
/// breaks flock() advisory locking." So opening a path that is already open in this process
/// returns the same `Environment` instance (when the configuration matches) instead of a second
/// handle; the environment closes when its last reference goes away.
///
/// Every environment is opened with `MDB_NOTLS`: Swift tasks hop between threads, so read
/// transactions must not be bound to the thread that began them. (lmdb.h: "If MDB_NOTLS is in use,
/// this does not apply to read-only transactions.") Write transactions still begin and commit on
/// one thread; see ``WriteTransaction``.
public final class Environment: @unchecked Sendable {
    // @unchecked Sendable: the handle is an `MDB_env *`, which LMDB allows any thread to use.
    // Its mutable companions are the Mutex-guarded caches and the atomic gate below.

    let handle: OpaquePointer
    /// The canonical (symlink-free, absolute) path of the directory.
    public let path: String
    /// The configuration the environment was opened with.
    public let configuration: Configuration
    /// Live transactions, so that the map can be resized safely.
    let gate = TransactionGate()
    /// Reset read transactions kept for reuse (`mdb_txn_renew` instead of a new `mdb_txn_begin`).
    let readTransactionPool = Mutex<[PooledTransaction]>([])
    /// Named database handles, opened once each. lmdb.h requires `mdb_dbi_open` calls to be
    /// serialised across the process, so this lock is held around every open.
    let databases = Mutex<[String: Database]>([:])

    /// The largest key (and duplicate-sorted value) this build of LMDB accepts: 511 bytes in
    /// Debian's build.
    public let maxKeySize: Int
    /// The size of the file's pages (`ms_psize`): the operating system's page size of the machine
    /// that made the file; 0 only if LMDB could not say.
    package let pageSize: Int

    /// The most read transactions kept for reuse.
    static let readTransactionPoolLimit = 32

    private init(handle: OpaquePointer, path: String, configuration: Configuration) {
        self.handle = handle
        self.path = path
        self.configuration = configuration
        self.maxKeySize = Int(mdb_env_get_maxkeysize(handle))
        var statistics = MDB_stat()
        // An open environment always answers; a page size of 0 would only turn prefetching off.
        self.pageSize = mdb_env_stat(handle, &statistics) == 0 ? Int(statistics.ms_psize) : 0
    }

    /// Opens the environment in the directory at `path`, or returns the instance already open
    /// in this process.
    ///
    /// - Parameters:
    ///   - path: The directory that holds (or will hold) `data.mdb` and `lock.mdb`.
    ///   - configuration: Map size, limits and flags. When the path is already open, the
    ///     configurations must agree on `flags`, `maxDatabases` and `maxReaders`.
    /// - Throws: ``LMDBError`` with `.noSuchFile` when the directory is missing and may not be
    ///   created, `.permissionDenied` when it cannot be written, `.invalid` when the files are not
    ///   an LMDB environment, `.truncatedFile` when `data.mdb` is shorter than its meta page says,
    ///   `.noSpace` when the disk has no room for a new environment's files (what this call
    ///   created is removed again), `.alreadyOpen` when the path is open with another configuration.
    public static func open(
        path: String,
        configuration: Configuration = Configuration()
    ) throws(LMDBError) -> Environment {
        var created: [String] = []
        if configuration.createDirectory && !configuration.flags.contains(.readOnly) {
            created = try createDirectory(path)
        }
        let canonical: String
        do {
            canonical = try canonicalPath(path)
        } catch {
            for directory in created.reversed() { rmdir(directory) }
            throw error
        }
        return try Registry.shared.environment(at: canonical) { () throws(LMDBError) -> Environment in
            let record = CreationRecord(directory: canonical, created: created)
            do throws(LMDBError) {
                return try Environment.openNew(canonicalPath: canonical, configuration: configuration)
            } catch {
                record.undo(in: canonical, after: error)
                throw error
            }
        } compatible: { existing in
            existing.configuration.flags == configuration.flags
                && existing.configuration.maxDatabases == configuration.maxDatabases
                && existing.configuration.maxReaders == configuration.maxReaders
        }
    }

    /// Creates and opens a new `MDB_env`, making anew a data file whose creation a power cut tore
    /// (see ``isTornCreation(directory:)``).
    private static func openNew(
        canonicalPath: String,
        configuration: Configuration
    ) throws(LMDBError) -> Environment {
        do {
            return try openHandle(canonicalPath: canonicalPath, configuration: configuration)
        } catch  where error.code == .invalid && isTornCreation(directory: canonicalPath) {
            guard !configuration.flags.contains(.readOnly) else {
                throw LMDBError(
                    .invalid,
                    context: "opening environment at \(canonicalPath): its creation was cut short "
                        + "before its first commit, so it holds nothing; open it writable once to create it anew")
            }
            // Nothing was ever committed to it: make the environment anew, as its first open meant to.
            unlink(canonicalPath + "/data.mdb")
            return try openHandle(canonicalPath: canonicalPath, configuration: configuration)
        }
    }

    /// Creates and opens an `MDB_env`; on any failure the handle is closed before throwing.
    private static func openHandle(
        canonicalPath: String,
        configuration: Configuration
    ) throws(LMDBError) -> Environment {
        var raw: OpaquePointer?
        try check(mdb_env_create(&raw), "creating environment for \(canonicalPath)")
        guard let handle = raw else { preconditionFailure("mdb_env_create returned no handle") }
        do throws(LMDBError) {
            try check(
                mdb_env_set_mapsize(handle, configuration.mapSize),
                "setting map size \(configuration.mapSize) for \(canonicalPath)")
            try check(
                mdb_env_set_maxdbs(handle, MDB_dbi(configuration.maxDatabases)),
                "setting maxDatabases for \(canonicalPath)")
            try check(
                mdb_env_set_maxreaders(handle, UInt32(configuration.maxReaders)),
                "setting maxReaders for \(canonicalPath)")
            let flags = configuration.flags.rawValue | UInt32(MDB_NOTLS)
            if !configuration.flags.contains(.readOnly) {
                try allocateLockFile(
                    directory: canonicalPath, maxReaders: configuration.maxReaders,
                    mode: configuration.fileMode)
            }
            try checkMetaPage(directory: canonicalPath)
            try check(
                mdb_env_open(handle, canonicalPath, flags, mdb_mode_t(configuration.fileMode)),
                "opening environment at \(canonicalPath)")
            try checkDataFileLength(handle, path: canonicalPath)
        } catch {
            // lmdb.h: "If this function fails, mdb_env_close() must be called to discard the
            // MDB_env handle."
            mdb_env_close(handle)
            throw error
        }
        return Environment(handle: handle, path: canonicalPath, configuration: configuration)
    }

    deinit {
        // No transaction can be live: a write transaction and an owned read transaction hold a
        // strong reference to the environment, and `read(_:)` runs inside a call on it.
        for transaction in readTransactionPool.withLock({ $0 }) { mdb_txn_abort(transaction.pointer) }
        Registry.shared.close(self)
    }

    /// Creates `path` and its missing parents; returns the directories it created, outermost first.
    private static func createDirectory(_ path: String) throws(LMDBError) -> [String] {
        var components: [String] = []
        var current = ""
        for part in path.split(separator: "/", omittingEmptySubsequences: true) {
            current += (current.isEmpty && !path.hasPrefix("/") ? "" : "/") + part
            components.append(current)
        }
        var created: [String] = []
        for directory in components {
            if mkdir(directory, 0o755) == 0 {
                created.append(directory)
            } else if errno != EEXIST {
                let code = LMDBError.Code(rawValue: errno)
                for made in created.reversed() { rmdir(made) }
                throw LMDBError(code, context: "creating directory \(directory)")
            }
        }
        return created
    }

    private static func canonicalPath(_ path: String) throws(LMDBError) -> String {
        guard let resolved = realpath(path, nil) else {
            throw LMDBError(LMDBError.Code(rawValue: errno), context: "resolving path \(path)")
        }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}

/// A reset read transaction waiting in the pool.
struct PooledTransaction: @unchecked Sendable {
    // @unchecked Sendable: a reset MDB_RDONLY transaction under MDB_NOTLS may be renewed by any
    // thread; the pool hands each one to exactly one taker.
    let pointer: OpaquePointer
}
