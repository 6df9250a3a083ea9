// The floor: the same layout as DataStoreKit (records keyed by the ordered id key, one database
// per index, keys `components ‖ idKey ‖ len`), driven through LMDB's C API with hand-written index
// maintenance and a hand-written codec for the one Message shape. No generic documents, no
// nested transactions, no queues: what a careful C programmer would write for this one schema.
import CLMDB
#if canImport(Glibc)
import Glibc
#endif

struct LMDBFailure: Error, CustomStringConvertible {
    let code: Int32
    let operation: String
    var description: String { "LMDB \(operation): \(String(cString: mdb_strerror(code))) (\(code))" }
}

@inline(__always)
func lmdb(_ code: Int32, _ operation: @autoclosure () -> String) throws(LMDBFailure) {
    if code != 0 { throw LMDBFailure(code: code, operation: operation()) }
}

/// Lends `bytes` to LMDB as an `MDB_val`.
@inline(__always)
func withValue<R>(_ bytes: [UInt8], _ body: (inout MDB_val) throws -> R) rethrows -> R {
    try bytes.withUnsafeBytes { buffer in
        var value = MDB_val(mv_size: buffer.count, mv_data: UnsafeMutableRawPointer(mutating: buffer.baseAddress))
        return try body(&value)
    }
}

/// An environment at `path` with LMDB's defaults (durable commits), `MDB_NOTLS` and `flags`.
func openEnvironment(path: String, mapSize: Int, maxDatabases: UInt32, flags: UInt32 = 0) throws -> OpaquePointer? {
    var environment: OpaquePointer?
    try lmdb(mdb_env_create(&environment), "env_create")
    do {
        try lmdb(mdb_env_set_maxdbs(environment, maxDatabases), "set_maxdbs")
        try lmdb(mdb_env_set_mapsize(environment, mapSize), "set_mapsize")
        try lmdb(mdb_env_open(environment, path, UInt32(MDB_NOTLS) | flags, 0o644), "env_open \(path)")
    } catch {
        mdb_env_close(environment)
        throw error
    }
    return environment
}

/// One write transaction in `environment` on the calling thread: begin, `body`, commit (LMDB's
/// durable commit, two syncs); `body` throwing aborts it.
func writeTransaction(in environment: OpaquePointer?, _ body: (OpaquePointer) throws -> Void) throws {
    var transaction: OpaquePointer?
    try lmdb(mdb_txn_begin(environment, nil, 0, &transaction), "begin write")
    do {
        try body(transaction!)
    } catch {
        mdb_txn_abort(transaction)
        throw error
    }
    try lmdb(mdb_txn_commit(transaction), "commit")
}

@inline(__always)
func bytes(of value: MDB_val) -> UnsafeRawBufferPointer {
    UnsafeRawBufferPointer(start: value.mv_data, count: value.mv_size)
}

final class RawLMDBBackend: RawSaving, @unchecked Sendable {
    // @unchecked Sendable: the environment and database handles may be used from any thread
    // (lmdb.h: the environment is thread-safe; with MDB_NOTLS a read transaction is not tied to a
    // thread). The one read transaction below is used only by the thread that runs the read
    // workloads, one operation at a time; every write transaction begins and commits inside one
    // call on the calling thread, and LMDB serialises concurrent writers itself.
    let path: String
    private var environment: OpaquePointer?
    private(set) var records = MDB_dbi()
    private(set) var created = MDB_dbi()
    private(set) var from = MDB_dbi()
    private(set) var to = MDB_dbi()
    private(set) var pair = MDB_dbi()
    private(set) var hasPairIndex = false
    private var reader: OpaquePointer?

    init(path: String, mapSize: Int) throws {
        self.path = path
        environment = try openEnvironment(path: path, mapSize: mapSize, maxDatabases: 16)
        try write { transaction in
            func open(_ name: String) throws -> MDB_dbi {
                var dbi = MDB_dbi()
                try lmdb(mdb_dbi_open(transaction, name, UInt32(MDB_CREATE), &dbi), "dbi_open \(name)")
                return dbi
            }
            records = try open("messages")
            created = try open("messages/created_ts")
            from = try open("messages/from_user_key")
            to = try open("messages/to_user_key")
            pair = try open("messages/pair")
        }
        try lmdb(mdb_txn_begin(environment, nil, UInt32(MDB_RDONLY), &reader), "begin reader")
        mdb_txn_reset(reader)
    }

    func close() {
        if let reader { mdb_txn_abort(reader) }
        reader = nil
        if let environment { mdb_env_close(environment) }
        environment = nil
    }

    // MARK: Writing

    /// One write transaction on the calling thread: begin, `body`, commit (durable: two syncs).
    func write(_ body: (OpaquePointer) throws -> Void) throws {
        try writeTransaction(in: environment, body)
    }

    private func put(_ key: [UInt8], _ value: [UInt8], in dbi: MDB_dbi, _ transaction: OpaquePointer, flags: Int32 = 0)
        throws
    {
        try withValue(key) { key in
            try withValue(value) { value in
                try lmdb(mdb_put(transaction, dbi, &key, &value, UInt32(flags)), "put")
            }
        }
    }

    private func delete(_ key: [UInt8], in dbi: MDB_dbi, _ transaction: OpaquePointer) throws {
        try withValue(key) { key in try lmdb(mdb_del(transaction, dbi, &key, nil), "del") }
    }

    /// Inserts a new message (failing on a duplicate id) with its index entries.
    func insert(_ message: Message, in transaction: OpaquePointer) throws {
        let id = RawLayout.idKey(message.id)
        try put(
            id, RawLayout.record(message, version: mdb_txn_id(transaction)), in: records, transaction,
            flags: MDB_NOOVERWRITE)
        try put(RawLayout.createdKey(message, idKey: id), [], in: created, transaction)
        try put(RawLayout.stringKey(message.from_user_key, idKey: id), [], in: from, transaction)
        try put(RawLayout.stringKey(message.to_user_key, idKey: id), [], in: to, transaction)
        if hasPairIndex { try put(RawLayout.pairKey(message, idKey: id), [], in: pair, transaction) }
    }

    /// Replaces a stored message, moving only the index entries whose keys changed.
    func update(_ message: Message, in transaction: OpaquePointer) throws {
        let id = RawLayout.idKey(message.id)
        let old: Message = try withValue(id) { key in
            var value = MDB_val()
            try lmdb(mdb_get(transaction, records, &key, &value), "get for update")
            return try RawLayout.decode(bytes(of: value))
        }
        func move(_ oldKey: [UInt8], _ newKey: [UInt8], _ dbi: MDB_dbi) throws {
            guard oldKey != newKey else { return }
            try delete(oldKey, in: dbi, transaction)
            try put(newKey, [], in: dbi, transaction)
        }
        try move(RawLayout.createdKey(old, idKey: id), RawLayout.createdKey(message, idKey: id), created)
        try move(
            RawLayout.stringKey(old.from_user_key, idKey: id), RawLayout.stringKey(message.from_user_key, idKey: id),
            from)
        try move(
            RawLayout.stringKey(old.to_user_key, idKey: id), RawLayout.stringKey(message.to_user_key, idKey: id), to)
        if hasPairIndex { try move(RawLayout.pairKey(old, idKey: id), RawLayout.pairKey(message, idKey: id), pair) }
        try put(id, RawLayout.record(message, version: mdb_txn_id(transaction)), in: records, transaction)
    }

    /// Rewrites the records and every index in key order into full pages, in one durable write
    /// transaction: each database emptied, then refilled by appending what a read transaction begun
    /// under the write lock (so seeing the state the write starts from) still holds.
    func compact() throws {
        try write { transaction in
            var snapshot: OpaquePointer?
            try lmdb(mdb_txn_begin(environment, nil, UInt32(MDB_RDONLY), &snapshot), "begin snapshot")
            defer { mdb_txn_abort(snapshot) }
            for dbi in [records, created, from, to] + (hasPairIndex ? [pair] : []) {
                try lmdb(mdb_drop(transaction, dbi, 0), "empty")
                var cursor: OpaquePointer?
                try lmdb(mdb_cursor_open(snapshot, dbi, &cursor), "cursor_open")
                defer { mdb_cursor_close(cursor) }
                var key = MDB_val()
                var value = MDB_val()
                var code = mdb_cursor_get(cursor, &key, &value, MDB_FIRST)
                while code == MDB_SUCCESS {
                    try lmdb(mdb_put(transaction, dbi, &key, &value, UInt32(MDB_APPEND)), "put")
                    code = mdb_cursor_get(cursor, &key, &value, MDB_NEXT)
                }
                if code != MDB_NOTFOUND { try lmdb(code, "cursor_get") }
            }
        }
    }

    /// Fills the compound index from every record, in one transaction.
    func buildPairIndex() throws {
        try write { transaction in
            var cursor: OpaquePointer?
            try lmdb(mdb_cursor_open(transaction, records, &cursor), "cursor_open")
            defer { mdb_cursor_close(cursor) }
            var key = MDB_val()
            var value = MDB_val()
            var code = mdb_cursor_get(cursor, &key, &value, MDB_FIRST)
            while code == 0 {
                let message = try RawLayout.decode(bytes(of: value))
                try put(RawLayout.pairKey(message, idKey: Array(bytes(of: key))), [], in: pair, transaction)
                code = mdb_cursor_get(cursor, &key, &value, MDB_NEXT)
            }
            if code != MDB_NOTFOUND { try lmdb(code, "scan records") }
        }
        hasPairIndex = true
    }

    // MARK: Reading (one snapshot per call: the reset transaction is renewed, then reset again)

    func read<R>(_ body: (OpaquePointer) throws -> R) throws -> R {
        try lmdb(mdb_txn_renew(reader), "renew")
        defer { mdb_txn_reset(reader) }
        return try body(reader!)
    }

    func get(id: String) throws -> Message {
        try read { transaction in
            try withValue(RawLayout.idKey(id)) { key in
                var value = MDB_val()
                try lmdb(mdb_get(transaction, records, &key, &value), "get \(id)")
                return try RawLayout.decode(bytes(of: value))
            }
        }
    }

    /// Visits index keys from `start` while `body` returns true.
    private func scan(
        _ dbi: MDB_dbi, from start: [UInt8], in transaction: OpaquePointer,
        _ body: (UnsafeRawBufferPointer) throws -> Bool
    ) throws {
        var cursor: OpaquePointer?
        try lmdb(mdb_cursor_open(transaction, dbi, &cursor), "cursor_open")
        defer { mdb_cursor_close(cursor) }
        try withValue(start) { seek in
            var key = seek
            var value = MDB_val()
            var code = mdb_cursor_get(cursor, &key, &value, MDB_SET_RANGE)
            while code == 0 {
                guard try body(bytes(of: key)) else { return }
                code = mdb_cursor_get(cursor, &key, &value, MDB_NEXT)
            }
            if code != MDB_NOTFOUND { try lmdb(code, "cursor_get") }
        }
    }

    private func record(at idKey: UnsafeRawBufferPointer, in transaction: OpaquePointer) throws
        -> UnsafeRawBufferPointer
    {
        var key = MDB_val(mv_size: idKey.count, mv_data: UnsafeMutableRawPointer(mutating: idKey.baseAddress))
        var value = MDB_val()
        try lmdb(mdb_get(transaction, records, &key, &value), "get by index")
        return bytes(of: value)
    }

    /// `created_ts >= start`, the first `limit` in index order, decoded.
    func created(since start: Double, limit: Int) throws -> [Message] {
        try read { transaction in
            var seek: [UInt8] = []
            RawLayout.appendDouble(start, to: &seek)
            var found: [Message] = []
            found.reserveCapacity(limit)
            try scan(created, from: seek, in: transaction) { key in
                guard key.first == 0x30 else { return false }
                found.append(try RawLayout.decode(record(at: RawLayout.idKey(inIndexKey: key), in: transaction)))
                return found.count < limit
            }
            return found
        }
    }

    /// `from_user_key == sender && to_user_key == recipient`: through the compound index when
    /// asked, otherwise through the sender and recipient indexes side by side (``intersecting``).
    func messages(from sender: String, to recipient: String, compound: Bool) throws -> [Message] {
        if !compound { return try read { try intersecting(sender, recipient, $0) } }
        return try read { transaction in
            var prefix: [UInt8] = []
            RawLayout.appendString(sender, to: &prefix)
            RawLayout.appendString(recipient, to: &prefix)
            var found: [Message] = []
            try scan(pair, from: prefix, in: transaction) { key in
                guard key.count > prefix.count, memcmp(key.baseAddress!, prefix, prefix.count) == 0 else {
                    return false
                }
                let record = try record(at: RawLayout.idKey(inIndexKey: key), in: transaction)
                found.append(RawLayout.message(record, try RawLayout.fields(of: record)))
                return true
            }
            return found
        }
    }

    /// The plan DataStoreKit runs for the pair over single-field indexes (docs/queries.md): the
    /// sender's and the recipient's windows hold their entries in id order, so two cursors zig-zag,
    /// each seeking to the other's id, and only the records both hold are read.
    private func intersecting(_ sender: String, _ recipient: String, _ transaction: OpaquePointer) throws
        -> [Message]
    {
        var senderPrefix: [UInt8] = []
        RawLayout.appendString(sender, to: &senderPrefix)
        var recipientPrefix: [UInt8] = []
        RawLayout.appendString(recipient, to: &recipientPrefix)
        var senders: OpaquePointer?
        try lmdb(mdb_cursor_open(transaction, from, &senders), "cursor_open")
        defer { mdb_cursor_close(senders) }
        var recipients: OpaquePointer?
        try lmdb(mdb_cursor_open(transaction, to, &recipients), "cursor_open")
        defer { mdb_cursor_close(recipients) }
        // Copies into `id` the record key of the entry the cursor lands on; false outside `prefix`'s window.
        func land(_ cursor: OpaquePointer?, seeking target: [UInt8]?, _ prefix: [UInt8], _ id: inout [UInt8]) throws
            -> Bool
        {
            var key = MDB_val()
            var value = MDB_val()
            let code: Int32
            if let target {
                code = target.withUnsafeBytes { buffer in
                    key = MDB_val(mv_size: buffer.count, mv_data: UnsafeMutableRawPointer(mutating: buffer.baseAddress))
                    return mdb_cursor_get(cursor, &key, &value, MDB_SET_RANGE)
                }
            } else {
                code = mdb_cursor_get(cursor, &key, &value, MDB_NEXT)
            }
            if code == MDB_NOTFOUND { return false }
            try lmdb(code, "cursor_get")
            let bytes = bytes(of: key)
            guard bytes.count > prefix.count, memcmp(bytes.baseAddress!, prefix, prefix.count) == 0 else {
                return false
            }
            id.removeAll(keepingCapacity: true)
            id.append(contentsOf: RawLayout.idKey(inIndexKey: bytes))
            return true
        }
        var found: [Message] = []
        var senderID: [UInt8] = []
        var recipientID: [UInt8] = []
        var target: [UInt8] = []
        var sent = try land(senders, seeking: senderPrefix, senderPrefix, &senderID)
        var received = try land(recipients, seeking: recipientPrefix, recipientPrefix, &recipientID)
        while sent && received {
            if senderID == recipientID {
                let stored = try senderID.withUnsafeBytes { try record(at: $0, in: transaction) }
                found.append(RawLayout.message(stored, try RawLayout.fields(of: stored)))
                sent = try land(senders, seeking: nil, senderPrefix, &senderID)
                received = try land(recipients, seeking: nil, recipientPrefix, &recipientID)
            } else if senderID.lexicographicallyPrecedes(recipientID) {
                target.removeAll(keepingCapacity: true)
                target.append(contentsOf: senderPrefix)
                target.append(contentsOf: recipientID)
                sent = try land(senders, seeking: target, senderPrefix, &senderID)
            } else {
                target.removeAll(keepingCapacity: true)
                target.append(contentsOf: recipientPrefix)
                target.append(contentsOf: senderID)
                received = try land(recipients, seeking: target, recipientPrefix, &recipientID)
            }
        }
        return found
    }

    /// Every record with `type == type`, by a full scan of the records.
    func messages(ofType type: String) throws -> [Message] {
        try read { transaction in
            var cursor: OpaquePointer?
            try lmdb(mdb_cursor_open(transaction, records, &cursor), "cursor_open")
            defer { mdb_cursor_close(cursor) }
            var found: [Message] = []
            var key = MDB_val()
            var value = MDB_val()
            var code = mdb_cursor_get(cursor, &key, &value, MDB_FIRST)
            // Each leaf page whole on moving into it, as DataStoreKit's walk does.
            var statistics = MDB_stat()
            try lmdb(mdb_env_stat(environment, &statistics), "env_stat")
            let pageSize = Int(statistics.ms_psize)
            var page = 0
            while code == 0 {
                let address = Int(bitPattern: key.mv_data) & ~(pageSize - 1)
                if address != page {
                    if page != 0 { dsk_prefetch_page(UnsafeRawPointer(bitPattern: address), pageSize) }
                    page = address
                }
                let record = bytes(of: value)
                let fields = try RawLayout.fields(of: record)
                if RawLayout.equals(record, fields.type, type) { found.append(RawLayout.message(record, fields)) }
                code = mdb_cursor_get(cursor, &key, &value, MDB_NEXT)
            }
            if code != MDB_NOTFOUND { try lmdb(code, "scan") }
            return found
        }
    }

    /// Records, and entries of each index (for the consistency check).
    func counts() throws -> [Int] {
        try read { transaction in
            try [records, created, from, to, pair].map { dbi in
                var stat = MDB_stat()
                try lmdb(mdb_stat(transaction, dbi, &stat), "stat")
                return stat.ms_entries
            }
        }
    }
}
