internal import CLMDB
import Synchronization

/// Read-only cursors on one database, kept between read transactions so that a lookup renews one
/// (`mdb_cursor_renew`) instead of allocating and freeing a cursor each time.
///
/// lmdb.h: "A cursor in a read-only transaction must be closed explicitly, before or after its
/// transaction ends. It can be reused with mdb_cursor_renew() before finally closing it", and
/// "A cursor cannot be used when its database handle is closed": a pool belongs to one database
/// handle, and whoever drops that database must stop using its pools (the cursors it still holds
/// are only freed, never used, when it goes away).
public final class CursorPool: Sendable {
    /// The database every cursor of the pool is on.
    public let database: Database
    private let idle = Mutex<[PooledCursor]>([])

    /// The most idle cursors kept; one more given back is closed.
    static let limit = 8

    /// An empty pool for cursors on `database`.
    public init(database: Database) {
        self.database = database
    }

    deinit {
        for cursor in idle.withLock({ $0 }) { mdb_cursor_close(cursor.pointer) }
    }

    /// An idle cursor renewed for `transaction`, or a new one.
    func take(for transaction: TransactionHandle) throws(LMDBError) -> OpaquePointer {
        if let pooled = idle.withLock({ $0.popLast() })?.pointer {
            let code = mdb_cursor_renew(transaction.pointer, pooled)
            if code == MDB_SUCCESS { return pooled }
            mdb_cursor_close(pooled)
        }
        var cursor: OpaquePointer?
        try check(
            mdb_cursor_open(transaction.pointer, database.handle, &cursor),
            "opening a cursor on \(database.name ?? "(main)")")
        guard let cursor else { preconditionFailure("mdb_cursor_open returned no cursor") }
        return cursor
    }

    /// Keeps `cursor` for the next ``take(for:)``, or closes it when the pool is full.
    func giveBack(_ cursor: OpaquePointer) {
        let kept = idle.withLock { idle in
            guard idle.count < Self.limit else { return false }
            idle.append(PooledCursor(pointer: cursor))
            return true
        }
        if !kept { mdb_cursor_close(cursor) }
    }

    /// How many idle cursors the pool holds (for tests).
    public var idleCount: Int { idle.withLock { $0.count } }
}

/// An idle read-only cursor waiting in a ``CursorPool``.
private struct PooledCursor: @unchecked Sendable {
    // @unchecked Sendable: a read-only cursor is plain memory until renewed for a transaction
    // (lmdb.h allows renewing it "whether the previous transaction is live or dead"); the pool
    // hands each one to exactly one taker.
    let pointer: OpaquePointer
}
