internal import CLMDB

/// A read-only snapshot of an environment.
///
/// The snapshot holds still for as long as the transaction lives, whatever writers commit
/// meanwhile. It ends when it goes out of scope (or on ``end()``); ended transactions are reset
/// and kept for reuse, so beginning one is cheap. Because environments use `MDB_NOTLS`, a read
/// transaction may move between threads and tasks, but is used by one at a time (it is
/// `~Copyable`, so it has one owner).
///
/// Keep read transactions short: a live snapshot keeps the pages it sees from being reused, and
/// it holds back a map resize (see ``Environment/setMapSize(_:waitingAtMost:)``).
public struct ReadTransaction: ~Copyable, ReadableTransaction, @unchecked Sendable {
    // @unchecked Sendable: with MDB_NOTLS, lmdb.h allows a read-only transaction to be used from
    // any thread, one at a time; being ~Copyable, it has exactly one owner.

    let pointer: OpaquePointer
    /// Not retained, so that a read does not retain and release the environment (on the slow,
    /// side-table path: the registry holds it weakly). Safe because either `owner` holds it or
    /// the transaction lives only inside ``Environment/read(_:)``, whose `self` does.
    private let environment: Unmanaged<Environment>
    /// The environment, held strongly by a transaction that may outlive the caller's reference
    /// (``Environment/beginRead()``); `nil` inside ``Environment/read(_:)``.
    private let owner: Environment?
    private let maxKeySize: Int
    private let pageSize: Int
    /// The gate's number for a registered long-lived transaction, or 0.
    private let registration: Int

    public var transactionHandle: TransactionHandle {
        TransactionHandle(pointer: pointer, maxKeySize: maxKeySize, pageSize: pageSize)
    }

    init(environment: Environment, owned: Bool, registering holder: Environment.ReaderRegistration? = nil)
        throws(LMDBError)
    {
        self.environment = Unmanaged.passUnretained(environment)
        self.owner = owned ? environment : nil
        self.maxKeySize = environment.maxKeySize
        self.pageSize = environment.pageSize
        let pointer = try environment.beginReadTransaction()
        self.pointer = pointer
        self.registration = holder.map { environment.gate.register($0, snapshotID: Int(mdb_txn_id(pointer))) } ?? 0
    }

    deinit {
        let pointer = self.pointer
        let registration = self.registration
        environment._withUnsafeGuaranteedRef { environment in
            if registration != 0 { environment.gate.unregister(registration) }
            environment.endReadTransaction(pointer)
        }
    }

    /// Ends the transaction now. (It also ends when it goes out of scope.)
    public consuming func end() {}

    /// The id of the last committed transaction this snapshot sees.
    ///
    /// The corresponding C function is `mdb_txn_id`.
    public var snapshotID: Int { Int(mdb_txn_id(pointer)) }
}

extension ReadTransaction {
    /// Lends a cursor on `pool`'s database for the duration of `body`, renewed from the pool (or
    /// opened when the pool has none idle) and given back to it afterwards.
    ///
    /// Only a read-only transaction can reuse cursors: LMDB frees a write transaction's cursors
    /// when it ends. The corresponding C function is `mdb_cursor_renew`.
    /// - Throws: ``LMDBError`` when no cursor can be opened; whatever `body` throws.
    public func withCursor<R>(from pool: CursorPool, _ body: (inout Cursor) throws -> R) throws -> R {
        let handle = transactionHandle
        var cursor = Cursor(
            pointer: try pool.take(for: handle), database: pool.database, maxKeySize: handle.maxKeySize, pool: pool)
        return try body(&cursor)
    }
}

extension Environment {
    /// Runs `body` over a consistent snapshot of the environment.
    ///
    /// - Complexity: beginning a read transaction reuses a reset one when available
    ///   (`mdb_txn_renew`), so this is cheap enough to call once per lookup.
    public func read<R>(_ body: (borrowing ReadTransaction) throws -> R) throws -> R {
        let transaction = try ReadTransaction(environment: self, owned: false)
        return try body(transaction)
    }

    /// Whether an earlier failure left the environment unusable (`MDB_PANIC`): LMDB marks it so
    /// when writing a meta page fails, after which no transaction begins until it is reopened.
    ///
    /// The corresponding C call is `mdb_txn_begin` (not a pooled transaction's renewal, which
    /// does not look at the flag).
    public var hasFailedFatally: Bool {
        var transaction: OpaquePointer?
        let code = mdb_txn_begin(handle, nil, UInt32(MDB_RDONLY), &transaction)
        if code == 0, let transaction { mdb_txn_abort(transaction) }
        return code == MDB_PANIC
    }

    /// Begins a read transaction that the caller owns until it goes out of scope.
    ///
    /// It is registered as long-lived (``readers()`` shows its age, and a map resize that it
    /// holds back names it), but it cannot be asked to yield: a resize waits for it at most
    /// its bound, then fails. Use ``beginRead(registering:)`` to give it a name or to let it yield.
    public func beginRead() throws(LMDBError) -> ReadTransaction {
        try ReadTransaction(
            environment: self, owned: true,
            registering: ReaderRegistration(label: "a read transaction begun with Environment.beginRead()"))
    }

    /// Begins a long-lived read transaction that the caller owns until it goes out of scope,
    /// registered under `registration`: ``readers()`` shows its label and age, a map resize it
    /// holds back names it, and its `yield` callback is asked to end it when the map must grow
    /// or once it is older than its `maxAge` (see ``yieldExpiredReaders()``).
    public func beginRead(registering registration: ReaderRegistration) throws(LMDBError) -> ReadTransaction {
        try ReadTransaction(environment: self, owned: true, registering: registration)
    }

    /// Begins (or renews a pooled) `MDB_RDONLY` transaction, entering the gate.
    func beginReadTransaction() throws(LMDBError) -> OpaquePointer {
        gate.enter()
        if let pooled = readTransactionPool.withLock({ $0.popLast() })?.pointer {
            let code = mdb_txn_renew(pooled)
            if code == MDB_SUCCESS { return pooled }
            mdb_txn_abort(pooled)
        }
        var transaction: OpaquePointer?
        var code = mdb_txn_begin(handle, nil, UInt32(MDB_RDONLY), &transaction)
        if code == MDB_MAP_RESIZED {
            // Another process grew the map: adopt its size (no transaction of ours may be live).
            gate.leave()
            try adoptMapSizeGrownElsewhere()
            gate.enter()
            code = mdb_txn_begin(handle, nil, UInt32(MDB_RDONLY), &transaction)
        }
        guard code == MDB_SUCCESS, let transaction else {
            gate.leave()
            throw LMDBError(LMDBError.Code(rawValue: code), context: "beginning read transaction in \(path)")
        }
        return transaction
    }

    /// Resets a read transaction and keeps it for reuse (or aborts it when the pool is full).
    func endReadTransaction(_ transaction: OpaquePointer) {
        mdb_txn_reset(transaction)
        gate.leave()
        let kept = readTransactionPool.withLock { pool in
            guard pool.count < Environment.readTransactionPoolLimit else { return false }
            pool.append(PooledTransaction(pointer: transaction))
            return true
        }
        if !kept { mdb_txn_abort(transaction) }
    }
}
