internal import CLMDB

/// A position in a database, for ordered scans and seeks.
///
/// Obtained from ``ReadableTransaction/withCursor(on:_:)`` and valid only inside that closure
/// (lmdb.h: "Cursors may not span transactions"). "Not found" is `nil`, never an error. The
/// `with…` methods lend the key and value bytes from the map to a closure; the others return
/// copies.
public struct Cursor: ~Copyable {
    let pointer: OpaquePointer
    let database: Database
    /// The environment's `maxKeySize` (see ``TransactionHandle``).
    let maxKeySize: Int
    /// Where the cursor goes back when it ends, instead of being closed (``CursorPool``).
    private let pool: CursorPool?

    init(transaction: TransactionHandle, database: Database) throws(LMDBError) {
        var cursor: OpaquePointer?
        try check(
            mdb_cursor_open(transaction.pointer, database.handle, &cursor),
            "opening a cursor on \(database.name ?? "(main)")")
        guard let cursor else { preconditionFailure("mdb_cursor_open returned no cursor") }
        self.pointer = cursor
        self.database = database
        self.maxKeySize = transaction.maxKeySize
        self.pool = nil
    }

    /// A cursor already open (or renewed) for the current transaction, given back to `pool` when it ends.
    init(pointer: OpaquePointer, database: Database, maxKeySize: Int, pool: CursorPool) {
        self.pointer = pointer
        self.database = database
        self.maxKeySize = maxKeySize
        self.pool = pool
    }

    deinit {
        if let pool { pool.giveBack(pointer) } else { mdb_cursor_close(pointer) }
    }

    /// A relative move.
    public enum Move: Sendable {
        /// The first entry (`MDB_FIRST`).
        case first
        /// The last entry (`MDB_LAST`).
        case last
        /// The next entry, including the next duplicate (`MDB_NEXT`).
        case next
        /// The previous entry, including the previous duplicate (`MDB_PREV`).
        case previous
        /// The entry at the current position (`MDB_GET_CURRENT`).
        case current
        /// The first value of the current key (`MDB_FIRST_DUP`).
        case firstDuplicate
        /// The last value of the current key (`MDB_LAST_DUP`).
        case lastDuplicate
        /// The next value of the current key only (`MDB_NEXT_DUP`).
        case nextDuplicate
        /// The previous value of the current key only (`MDB_PREV_DUP`).
        case previousDuplicate
        /// The first value of the next key (`MDB_NEXT_NODUP`).
        case nextKey
        /// The last value of the previous key (`MDB_PREV_NODUP`).
        case previousKey

        var operation: MDB_cursor_op {
            switch self {
            case .first: MDB_FIRST
            case .last: MDB_LAST
            case .next: MDB_NEXT
            case .previous: MDB_PREV
            case .current: MDB_GET_CURRENT
            case .firstDuplicate: MDB_FIRST_DUP
            case .lastDuplicate: MDB_LAST_DUP
            case .nextDuplicate: MDB_NEXT_DUP
            case .previousDuplicate: MDB_PREV_DUP
            case .nextKey: MDB_NEXT_NODUP
            case .previousKey: MDB_PREV_NODUP
            }
        }
    }

    /// An owned copy of one entry.
    public struct Entry: Sendable, Hashable {
        /// The key bytes.
        public var key: [UInt8]
        /// The value bytes.
        public var value: [UInt8]
        /// Creates an entry.
        public init(key: [UInt8], value: [UInt8]) {
            self.key = key
            self.value = value
        }
    }

    /// Performs `operation` with `key`/`value` as inputs and lends the resulting entry.
    private func perform<R>(
        _ operation: MDB_cursor_op,
        key input: UnsafeRawBufferPointer?,
        value inputValue: UnsafeRawBufferPointer?,
        _ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws -> R
    ) throws -> R? {
        var key = MDB_val(mv_size: input?.count ?? 0, mv_data: UnsafeMutableRawPointer(mutating: input?.baseAddress))
        var value = MDB_val(
            mv_size: inputValue?.count ?? 0,
            mv_data: UnsafeMutableRawPointer(mutating: inputValue?.baseAddress))
        let code = mdb_cursor_get(pointer, &key, &value, operation)
        if code == MDB_NOTFOUND { return nil }
        try check(code, "moving a cursor on \(database.name ?? "(main)")")
        return try body(key.bytes, value.bytes)
    }

    /// Moves the cursor and lends the entry it lands on, or returns `nil` when there is none.
    ///
    /// The corresponding C function is `mdb_cursor_get`.
    public func withMove<R>(
        _ move: Move,
        _ body: (_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) throws -> R
    ) throws -> R? {
        try perform(move.operation, key: nil, value: nil, body)
    }

    /// Moves to the first key at or after `key` (`MDB_SET_RANGE`) and lends that entry, or
    /// returns `nil` when every key sorts before `key`.
    /// - Complexity: O(log n).
    public func withSeek<R>(
        atOrAfter key: [UInt8],
        _ body: (_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) throws -> R
    ) throws -> R? {
        try validateKey(key.count, database, maxKeySize: maxKeySize)
        return try key.withUnsafeBytes { try perform(MDB_SET_RANGE, key: $0, value: nil, body) }
    }

    /// ``withMove(_:_:)`` for a walk whose closure says whether to go on. Not generic: a generic
    /// call from another module looks up the metadata of `R?` at every step.
    ///
    /// The corresponding C function is `mdb_cursor_get`.
    public func withMove(
        _ move: Move,
        _ body: (_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) throws -> Bool
    ) throws -> Bool? {
        try perform(move.operation, key: nil, value: nil, body)
    }

    /// ``withSeek(atOrAfter:_:)`` for a walk whose closure says whether to go on. Not generic: a
    /// generic call from another module looks up the metadata of `R?` on every call.
    /// - Complexity: O(log n).
    public func withSeek(
        atOrAfter key: [UInt8],
        _ body: (_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) throws -> Bool
    ) throws -> Bool? {
        try validateKey(key.count, database, maxKeySize: maxKeySize)
        return try key.withUnsafeBytes { try perform(MDB_SET_RANGE, key: $0, value: nil, body) }
    }

    /// Moves to exactly `key` (`MDB_SET_KEY`) and lends its (first) entry, or returns `nil`.
    /// - Complexity: O(log n).
    public func withSeek<R>(
        to key: [UInt8],
        _ body: (_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) throws -> R
    ) throws -> R? {
        try validateKey(key.count, database, maxKeySize: maxKeySize)
        return try key.withUnsafeBytes { try perform(MDB_SET_KEY, key: $0, value: nil, body) }
    }

    /// In a duplicate-sorted database, moves to `key`'s first value at or after `value`
    /// (`MDB_GET_BOTH_RANGE`), or returns `nil`.
    public func withSeek<R>(
        to key: [UInt8],
        valueAtOrAfter value: [UInt8],
        _ body: (_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) throws -> R
    ) throws -> R? {
        try validateKey(key.count, database, maxKeySize: maxKeySize)
        return try key.withUnsafeBytes { keyBytes in
            try value.withUnsafeBytes { try perform(MDB_GET_BOTH_RANGE, key: keyBytes, value: $0, body) }
        }
    }

    /// Moves the cursor and returns a copy of the entry, or `nil` when there is none.
    public func move(_ move: Move) throws -> Entry? {
        try withMove(move) { Entry(key: Array($0), value: Array($1)) }
    }

    /// Moves to the first key at or after `key` and returns a copy of the entry, or `nil`.
    public func seek(atOrAfter key: [UInt8]) throws -> Entry? {
        try withSeek(atOrAfter: key) { Entry(key: Array($0), value: Array($1)) }
    }

    /// Moves to exactly `key` and returns a copy of its (first) entry, or `nil`.
    public func seek(to key: [UInt8]) throws -> Entry? {
        try withSeek(to: key) { Entry(key: Array($0), value: Array($1)) }
    }

    /// Moves to `key`'s first value at or after `value` and returns a copy, or `nil`.
    public func seek(to key: [UInt8], valueAtOrAfter value: [UInt8]) throws -> Entry? {
        try withSeek(to: key, valueAtOrAfter: value) { Entry(key: Array($0), value: Array($1)) }
    }

    /// The number of values stored under the current key of a duplicate-sorted database.
    ///
    /// The corresponding C function is `mdb_cursor_count`.
    public func duplicateCount() throws(LMDBError) -> Int {
        var count = 0
        try check(mdb_cursor_count(pointer, &count), "counting duplicates in \(database.name ?? "(main)")")
        return count
    }

    /// Stores `value` under `key` and leaves the cursor there. Only in a write transaction.
    ///
    /// With `.append`, a run of puts through one cursor finds the last page once rather than
    /// searching the tree for each key, as separate puts do (the bulk-loading path lmdb.h
    /// describes for `MDB_APPEND`: "This option allows fast bulk loading when keys are already
    /// known to be in the correct order").
    ///
    /// The corresponding C function is `mdb_cursor_put`.
    /// - Throws: ``LMDBError`` `.keyExists` with `.append` when `key` does not sort after every
    ///   key present (or with `.noOverwrite` when it is present); `.badValueSize` for an empty or
    ///   over-long key; `.mapFull`, `.transactionFull`.
    public func put(
        _ value: UnsafeRawBufferPointer, forKey key: UnsafeRawBufferPointer, options: PutOptions = []
    ) throws(LMDBError) {
        try validateKey(key.count, database, maxKeySize: maxKeySize)
        var keyValue = MDB_val(mv_size: key.count, mv_data: UnsafeMutableRawPointer(mutating: key.baseAddress))
        var dataValue = MDB_val(mv_size: value.count, mv_data: UnsafeMutableRawPointer(mutating: value.baseAddress))
        try check(
            mdb_cursor_put(pointer, &keyValue, &dataValue, options.rawValue),
            "putting a key of \(key.count) bytes into \(database.name ?? "(main)")")
    }

    /// Deletes the entry at the cursor (or, with `allDuplicates`, every value of its key).
    /// Only in a write transaction.
    ///
    /// The corresponding C function is `mdb_cursor_del`.
    public func deleteCurrent(allDuplicates: Bool = false) throws(LMDBError) {
        try check(
            mdb_cursor_del(pointer, allDuplicates ? UInt32(MDB_NODUPDATA) : 0),
            "deleting at a cursor on \(database.name ?? "(main)")")
    }
}
