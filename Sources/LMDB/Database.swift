internal import CLMDB

/// A handle to a named database inside an ``Environment``: cheap to copy and safe to share.
///
/// Handles are opened once per environment and never closed (lmdb.h advises against
/// `mdb_dbi_close` in normal use: "This call is not mutex protected. Handles should only be
/// closed by a single thread, and only if no other threads are going to reference the database
/// handle or one of its cursors any further.").
public struct Database: Sendable, Hashable {
    let handle: MDB_dbi
    /// The database's name, or `nil` for the environment's unnamed main database.
    public let name: String?
    /// The options it was opened with.
    public let options: Options

    /// Options for ``Environment/openDatabase(named:options:)``.
    public struct Options: OptionSet, Sendable, Hashable {
        public let rawValue: UInt32
        public init(rawValue: UInt32) { self.rawValue = rawValue }

        /// Create the database when it does not exist (`MDB_CREATE`).
        public static let create = Options(rawValue: UInt32(MDB_CREATE))
        /// Allow several sorted values per key (`MDB_DUPSORT`). Values are then limited to the
        /// same 511 bytes as keys.
        public static let duplicateSort = Options(rawValue: UInt32(MDB_DUPSORT))
    }
}

/// Options for a put.
public struct PutOptions: OptionSet, Sendable, Hashable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// Fail with `.keyExists` when the key is present (`MDB_NOOVERWRITE`).
    public static let noOverwrite = PutOptions(rawValue: UInt32(MDB_NOOVERWRITE))
    /// In a duplicate-sorted database, fail with `.keyExists` when the pair is present
    /// (`MDB_NODUPDATA`).
    public static let noDuplicateData = PutOptions(rawValue: UInt32(MDB_NODUPDATA))
    /// Append at the end; the key must sort after every key present (`MDB_APPEND`).
    public static let append = PutOptions(rawValue: UInt32(MDB_APPEND))
    /// Append a duplicate after the key's existing values (`MDB_APPENDDUP`).
    public static let appendDuplicate = PutOptions(rawValue: UInt32(MDB_APPENDDUP))
}

extension Environment {
    /// Opens (and with `.create`, creates) the named database, or returns the handle already
    /// opened under that name.
    ///
    /// The open runs in a transaction of its own, serialised with every other open in the process
    /// as lmdb.h requires ("A transaction that uses this function must finish (either commit or
    /// abort) before any other transaction in the process may use this function.").
    ///
    /// - Precondition: the calling thread holds no write transaction of this environment (a
    ///   creating open needs the write lock).
    /// - Throws: ``LMDBError`` `.notFound` when the database is missing and `.create` was not
    ///   given, `.databasesFull` past `maxDatabases`, `.incompatible` when `.duplicateSort`
    ///   differs from how it was created.
    public func openDatabase(named name: String?, options: Database.Options = []) throws(LMDBError) -> Database {
        let key = name ?? ""
        return try databases.withLock { (cache: inout [String: Database]) throws(LMDBError) -> Database in
            if let open = cache[key] {
                guard open.options.subtracting(.create) == options.subtracting(.create) else {
                    throw LMDBError(.incompatible, context: "opening database \(key) with other options")
                }
                return open
            }
            let creating = options.contains(.create) && !configuration.flags.contains(.readOnly)
            let txnFlags: UInt32 = creating ? 0 : UInt32(MDB_RDONLY)
            var txn: OpaquePointer?
            gate.enter()
            defer { gate.leave() }
            try check(mdb_txn_begin(handle, nil, txnFlags, &txn), "beginning transaction to open database \(key)")
            var dbi: MDB_dbi = 0
            let flags = creating ? options.rawValue : options.subtracting(.create).rawValue
            let code = name.map { mdb_dbi_open(txn, $0, flags, &dbi) } ?? mdb_dbi_open(txn, nil, flags, &dbi)
            guard code == MDB_SUCCESS else {
                mdb_txn_abort(txn)
                throw LMDBError(LMDBError.Code(rawValue: code), context: "opening database \(key)")
            }
            try check(mdb_txn_commit(txn), "committing open of database \(key)")
            let database = Database(handle: dbi, name: name, options: options.subtracting(.create))
            cache[key] = database
            return database
        }
    }

    /// Forgets a database handle after ``WriteTransaction/dropDatabase(_:)`` deleted it.
    func forgetDatabase(named name: String?) {
        databases.withLock { $0[name ?? ""] = nil }
    }
}
