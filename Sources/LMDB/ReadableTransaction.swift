internal import CLMDB

/// The opaque handle of a live transaction. Nothing outside this module can use it.
///
/// It holds no reference to the environment: a retain and a release of the environment for every
/// lookup would take the slow, side-table path (the registry holds environments weakly).
public struct TransactionHandle {
    let pointer: OpaquePointer
    /// The environment's `maxKeySize`, to refuse a key LMDB would.
    let maxKeySize: Int
    /// The environment's page size, for ``LeafPagePrefetch``.
    let pageSize: Int
}

/// Operations every transaction offers: a ``WriteTransaction`` can be used wherever a
/// ``ReadTransaction`` can.
///
/// Bytes lent by LMDB (the `UnsafeRawBufferPointer`s passed to closures) point into the memory
/// map and are valid only inside the closure: lmdb.h says values returned from the database are
/// valid "until a subsequent update operation, or the end of the transaction".
public protocol ReadableTransaction: ~Copyable {
    /// The transaction's handle, for this module's use.
    var transactionHandle: TransactionHandle { get }
}

extension ReadableTransaction where Self: ~Copyable {
    /// Lends the value stored under `key` to `body`, or returns `nil` when the key is absent.
    ///
    /// The corresponding C function is `mdb_get`.
    /// - Complexity: O(log n) in the number of keys.
    /// - Throws: ``LMDBError`` `.badValueSize` for an empty or over-long key; whatever `body` throws.
    @inlinable
    public func withValue<R>(
        forKey key: UnsafeRawBufferPointer,
        in database: Database,
        _ body: (UnsafeRawBufferPointer) throws -> R
    ) throws -> R? {
        guard let value = try lookUp(key, in: database) else { return nil }
        return try body(value)
    }

    /// Lends the value stored under `key` to `body`, or returns `nil` when the key is absent.
    @inlinable
    public func withValue<R>(
        forKey key: [UInt8],
        in database: Database,
        _ body: (UnsafeRawBufferPointer) throws -> R
    ) throws -> R? {
        guard let value = try key.withUnsafeBytes({ try lookUp($0, in: database) }) else { return nil }
        return try body(value)
    }

    /// The value stored under `key`, valid until the transaction ends, or `nil`. Not generic, so
    /// that the inlinable lookups above specialize in their callers' modules: called across the
    /// module boundary unspecialized, a lookup paid a generic-metadata lookup of its `R?`.
    @usableFromInline
    func lookUp(_ key: UnsafeRawBufferPointer, in database: Database) throws(LMDBError) -> UnsafeRawBufferPointer? {
        let handle = transactionHandle
        try validateKey(key.count, database, maxKeySize: handle.maxKeySize)
        var data = MDB_val()
        let code = LMDB.withValue(key) { mdb_get(handle.pointer, database.handle, &$0, &data) }
        if code == MDB_NOTFOUND { return nil }
        try check(code, "getting a key from \(database.name ?? "(main)")")
        return data.bytes
    }

    /// Returns a copy of the value stored under `key`, or `nil` when the key is absent.
    /// - Complexity: O(log n + m) for n keys and a value of m bytes.
    public func value(forKey key: [UInt8], in database: Database) throws -> [UInt8]? {
        try withValue(forKey: key, in: database) { Array($0) }
    }

    /// Statistics of `database` as this transaction sees it (entry count, depth, pages).
    ///
    /// The corresponding C function is `mdb_stat`.
    public func statistics(of database: Database) throws(LMDBError) -> Statistics {
        var stat = MDB_stat()
        try check(
            mdb_stat(transactionHandle.pointer, database.handle, &stat),
            "reading statistics of \(database.name ?? "(main)")")
        return Statistics(stat)
    }

    /// The number of entries (key-value pairs, counting each duplicate) in `database`.
    public func count(of database: Database) throws(LMDBError) -> Int {
        try statistics(of: database).entries
    }

    /// Opens a cursor on `database` for the duration of `body`.
    ///
    /// The corresponding C function is `mdb_cursor_open`.
    public func withCursor<R>(on database: Database, _ body: (inout Cursor) throws -> R) throws -> R {
        var cursor = try Cursor(transaction: transactionHandle, database: database)
        return try body(&cursor)
    }
}

/// Statistics of a database or of an environment's main database.
public struct Statistics: Sendable, Hashable {
    /// The database page size in bytes.
    public let pageSize: Int
    /// The depth of the B-tree.
    public let depth: Int
    /// Branch (internal) pages.
    public let branchPages: Int
    /// Leaf pages.
    public let leafPages: Int
    /// Overflow pages (values too large for a leaf).
    public let overflowPages: Int
    /// Key-value pairs, counting each duplicate.
    public let entries: Int

    init(_ stat: MDB_stat) {
        pageSize = Int(stat.ms_psize)
        depth = Int(stat.ms_depth)
        branchPages = stat.ms_branch_pages
        leafPages = stat.ms_leaf_pages
        overflowPages = stat.ms_overflow_pages
        entries = stat.ms_entries
    }

    /// The pages this database uses, in bytes.
    public var bytesUsed: Int { (branchPages + leafPages + overflowPages) * pageSize }
}
