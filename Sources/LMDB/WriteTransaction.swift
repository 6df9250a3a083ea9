internal import CLMDB
#if canImport(Glibc)
import Glibc
#endif

/// A write transaction: the only way to change an environment.
///
/// **It begins and commits on one OS thread and never spans a suspension point.** LMDB guards
/// writers with a mutex that the beginning thread owns (lmdb.h: "A transaction and its cursors
/// must only be used by a single thread"; `MDB_NOTLS` lifts this for read-only transactions
/// only). A Swift task may resume on another thread after any `await`, so:
/// - ``Environment/write(_:)`` takes a synchronous closure: there is nowhere to `await`;
/// - ``Environment/beginWrite()`` is unavailable from async code;
/// - the transaction is `~Copyable` and not `Sendable`, and checks on commit that it is on the
///   thread that began it.
///
/// Only one write transaction runs at a time per environment; a second waits for the first.
/// An uncommitted transaction aborts when it goes out of scope.
public struct WriteTransaction: ~Copyable, ReadableTransaction {
    let pointer: OpaquePointer
    let environment: Environment
    let thread: pthread_t
    let isNested: Bool
    private var isFinished = false
    /// What the layer above attaches to this transaction for the writes made through it (the
    /// store's tally of what each change set changed); LMDB never looks at it. A nested
    /// transaction begins with its parent's.
    package var attachment: AnyObject?

    public var transactionHandle: TransactionHandle {
        TransactionHandle(pointer: pointer, maxKeySize: environment.maxKeySize, pageSize: environment.pageSize)
    }

    init(environment: Environment, parent: OpaquePointer?) throws(LMDBError) {
        let pointer = try Self.begin(in: environment, parent: parent)
        self.environment = environment
        self.thread = pthread_self()
        self.isNested = parent != nil
        self.pointer = pointer
    }

    /// Begins the LMDB transaction; a top-level one enters the gate and stays in it on success.
    private static func begin(in environment: Environment, parent: OpaquePointer?) throws(LMDBError) -> OpaquePointer {
        if environment.configuration.flags.contains(.readOnly) {
            throw LMDBError(
                .permissionDenied,
                context: "beginning a write transaction in \(environment.path), "
                    + "which was opened read-only")
        }
        if parent == nil { environment.gate.enter() }
        var transaction: OpaquePointer?
        var code = mdb_txn_begin(environment.handle, parent, 0, &transaction)
        if code == MDB_MAP_RESIZED && parent == nil {
            environment.gate.leave()
            try environment.adoptMapSizeGrownElsewhere()
            environment.gate.enter()
            code = mdb_txn_begin(environment.handle, nil, 0, &transaction)
        }
        guard code == MDB_SUCCESS, let transaction else {
            if parent == nil { environment.gate.leave() }
            throw LMDBError(
                LMDBError.Code(rawValue: code),
                context: "beginning \(parent == nil ? "write" : "nested") transaction in \(environment.path)")
        }
        return transaction
    }

    deinit {
        if !isFinished { mdb_txn_abort(pointer) }
        if !isNested { environment.gate.leave() }
    }

    /// Commits every change durably (subject to the environment's sync flags) and ends the
    /// transaction. A nested transaction commits into its parent.
    ///
    /// The corresponding C function is `mdb_txn_commit`.
    /// - Throws: ``LMDBError`` such as `.mapFull` or `.noSpace`; the transaction is ended either way
    ///   and nothing of it is committed on failure.
    public consuming func commit() throws(LMDBError) {
        precondition(
            pthread_equal(thread, pthread_self()) != 0,
            "LMDB write transaction committed on a thread other than the one that began it")
        // lmdb.h: after mdb_txn_commit "the transaction handle is freed. It and its cursors must
        // not be used again after this call", even when it fails.
        isFinished = true
        try check(mdb_txn_commit(pointer), "committing transaction in \(environment.path)")
    }

    /// Abandons every change and ends the transaction. (Also what happens when it goes out of
    /// scope uncommitted.)
    public consuming func abort() {}

    /// Runs `body` in a nested transaction: its changes join this transaction when `body`
    /// returns, and are rolled back alone when `body` throws, while this transaction goes on.
    ///
    /// The corresponding C call is `mdb_txn_begin` with a parent.
    public mutating func nested<R>(_ body: (inout WriteTransaction) throws -> R) throws -> R {
        precondition(
            pthread_equal(thread, pthread_self()) != 0,
            "LMDB nested transaction begun on a thread other than its parent's")
        var child = try WriteTransaction(environment: environment, parent: pointer)
        child.attachment = attachment
        let result = try body(&child)
        try child.commit()
        return result
    }

    /// The id this transaction will have once committed.
    public var transactionID: Int { Int(mdb_txn_id(pointer)) }
}

extension Environment {
    /// Runs `body` in a write transaction and commits it when `body` returns; when `body` throws,
    /// nothing is written and the error is rethrown.
    ///
    /// The closure is synchronous on purpose: a write transaction must not span a suspension
    /// point (see ``WriteTransaction``). Calling this from a task blocks that task's thread while
    /// another writer holds the lock.
    public func write<R>(_ body: (inout WriteTransaction) throws -> R) throws -> R {
        var transaction = try WriteTransaction(environment: self, parent: nil)
        let result = try body(&transaction)
        try transaction.commit()
        return result
    }

    /// Begins a write transaction that the caller commits or aborts on this same thread.
    @available(
        *, noasync, message: "a write transaction must not span a suspension point; use write(_:) or a dedicated thread"
    )
    public func beginWrite() throws(LMDBError) -> WriteTransaction {
        try WriteTransaction(environment: self, parent: nil)
    }
}

extension WriteTransaction {
    /// Stores `value` under `key`.
    ///
    /// The corresponding C function is `mdb_put`.
    /// - Complexity: O(log n) in the number of keys.
    /// - Throws: ``LMDBError`` `.keyExists` with `.noOverwrite` (or `.noDuplicateData`) when the key
    ///   (or pair) is present; `.badValueSize` for an empty or over-long key, or an over-long value
    ///   in a duplicate-sorted database; `.mapFull`, `.transactionFull`.
    public mutating func put(
        _ value: UnsafeRawBufferPointer,
        forKey key: UnsafeRawBufferPointer,
        in database: Database,
        options: PutOptions = []
    ) throws(LMDBError) {
        try validateKey(key.count, database, maxKeySize: environment.maxKeySize)
        if database.options.contains(.duplicateSort) && value.count > environment.maxKeySize {
            throw LMDBError(
                .badValueSize,
                context: "value of \(value.count) bytes for duplicate-sorted "
                    + "database \(database.name ?? "(main)") (at most \(environment.maxKeySize))")
        }
        let pointer = self.pointer
        let code = LMDB.withValue(key) { key in
            LMDB.withValue(value) { value in mdb_put(pointer, database.handle, &key, &value, options.rawValue) }
        }
        try check(code, "putting a key of \(key.count) bytes into \(database.name ?? "(main)")")
    }

    /// Stores `value` under `key`. See ``put(_:forKey:in:options:)-(UnsafeRawBufferPointer,_,_,_)``.
    public mutating func put(
        _ value: [UInt8],
        forKey key: [UInt8],
        in database: Database,
        options: PutOptions = []
    ) throws(LMDBError) {
        let outcome = value.withUnsafeBytes { value in
            key.withUnsafeBytes { key in
                Result { () throws(LMDBError) in try put(value, forKey: key, in: database, options: options) }
            }
        }
        try outcome.get()
    }

    /// Deletes `key` (with all its duplicates), or only the pair `key`–`value` when `value` is
    /// given. Returns `false` when there was nothing to delete.
    ///
    /// The corresponding C function is `mdb_del`.
    @discardableResult
    public mutating func delete(
        _ key: [UInt8],
        value: [UInt8]? = nil,
        in database: Database
    ) throws(LMDBError) -> Bool {
        try validateKey(key.count, database, maxKeySize: environment.maxKeySize)
        let pointer = self.pointer
        let code: Int32 = key.withUnsafeBytes { keyBytes in
            LMDB.withValue(keyBytes) { key in
                guard let value else { return mdb_del(pointer, database.handle, &key, nil) }
                return value.withUnsafeBytes { valueBytes in
                    LMDB.withValue(valueBytes) { value in mdb_del(pointer, database.handle, &key, &value) }
                }
            }
        }
        if code == MDB_NOTFOUND { return false }
        try check(code, "deleting a key from \(database.name ?? "(main)")")
        return true
    }

    /// Deletes every entry of `database`, keeping the database.
    ///
    /// The corresponding C function is `mdb_drop` with `del = 0`.
    public mutating func empty(_ database: Database) throws(LMDBError) {
        try check(mdb_drop(pointer, database.handle, 0), "emptying \(database.name ?? "(main)")")
    }

    /// Deletes `database` from the environment. Its handle must not be used again.
    ///
    /// The corresponding C function is `mdb_drop` with `del = 1`.
    public mutating func dropDatabase(_ database: Database) throws(LMDBError) {
        try check(mdb_drop(pointer, database.handle, 1), "dropping \(database.name ?? "(main)")")
        environment.forgetDatabase(named: database.name)
    }
}
