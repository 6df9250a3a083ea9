// The raw LMDB floor for the event-log group commit: a fresh environment with DataStoreKit's
// layout for a collection `events` with one index on `created_ts` — records under the ordered id
// key, index keys `created_ts ‖ idKey ‖ len` — written through LMDB's C API with the hand-written
// Message codec. Durable commits are LMDB's own (two syncs).
import CLMDB

final class RawEventLog: RawSaving, @unchecked Sendable {
    // @unchecked Sendable: the handles are set once in `init`; every write transaction begins and
    // commits inside one `write` call on the calling thread, and LMDB serialises writers itself.
    private var environment: OpaquePointer?
    private var records = MDB_dbi()
    private var created = MDB_dbi()

    /// Opens (creating) the log at `path`; `flags` are added to `mdb_env_open`'s (`MDB_NOMETASYNC`
    /// matches DataStoreKit's relaxed durability).
    init(path: String, mapSize: Int, flags: UInt32 = 0) throws {
        environment = try openEnvironment(path: path, mapSize: mapSize, maxDatabases: 4, flags: flags)
        try write { transaction in
            try lmdb(mdb_dbi_open(transaction, "events", UInt32(MDB_CREATE), &records), "dbi_open events")
            try lmdb(
                mdb_dbi_open(transaction, "events/created_ts", UInt32(MDB_CREATE), &created),
                "dbi_open events/created_ts")
        }
    }

    func close() {
        if let environment { mdb_env_close(environment) }
        environment = nil
    }

    func write(_ body: (OpaquePointer) throws -> Void) throws {
        try writeTransaction(in: environment, body)
    }

    /// Inserts a new event (failing on a duplicate id) with its `created_ts` index entry.
    func insert(_ message: Message, in transaction: OpaquePointer) throws {
        let id = RawLayout.idKey(message.id)
        let record = RawLayout.record(message, version: mdb_txn_id(transaction))
        let createdKey = RawLayout.createdKey(message, idKey: id)
        try withValue(id) { key in
            try withValue(record) { value in
                try lmdb(mdb_put(transaction, records, &key, &value, UInt32(MDB_NOOVERWRITE)), "put event")
            }
        }
        try withValue(createdKey) { key in
            var empty = MDB_val(mv_size: 0, mv_data: nil)
            try lmdb(mdb_put(transaction, created, &key, &empty, 0), "put created_ts")
        }
    }

    /// Records and `created_ts` index entries.
    func counts() throws -> (records: Int, indexEntries: Int) {
        var transaction: OpaquePointer?
        try lmdb(mdb_txn_begin(environment, nil, UInt32(MDB_RDONLY), &transaction), "begin read")
        defer { mdb_txn_abort(transaction) }
        var stat = MDB_stat()
        try lmdb(mdb_stat(transaction, records, &stat), "stat events")
        let records = stat.ms_entries
        try lmdb(mdb_stat(transaction, created, &stat), "stat events/created_ts")
        return (records, stat.ms_entries)
    }
}
