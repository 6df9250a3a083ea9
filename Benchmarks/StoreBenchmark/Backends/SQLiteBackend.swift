// The alternative users would pick: SQLite (Debian's libsqlite3) with the same layout — a table
// keyed by id (WITHOUT ROWID, so the row lives in the primary-key b-tree like an LMDB record) and
// the same secondary indexes — in WAL mode with synchronous=FULL (every commit durable), and
// memory-mapped reads, as a user tuning it for this job would configure it.
import CSQLite
import Synchronization

struct SQLiteFailure: Error, CustomStringConvertible {
    let code: Int32
    let message: String
    var description: String { "SQLite: \(message) (\(code))" }
}

/// SQLite's "copy the bytes now" destructor (`SQLITE_TRANSIENT`, a macro Swift does not import).
private func transient() -> sqlite3_destructor_type {
    unsafeBitCast(-1, to: sqlite3_destructor_type.self)
}

/// A prepared statement, reset after each use.
final class Statement {
    let handle: OpaquePointer
    private let database: OpaquePointer

    init(_ sql: String, in database: OpaquePointer) throws {
        var statement: OpaquePointer?
        let code = sqlite3_prepare_v2(database, sql, -1, &statement, nil)
        guard code == SQLITE_OK, let statement else {
            throw SQLiteFailure(code: code, message: "\(String(cString: sqlite3_errmsg(database))) in \(sql)")
        }
        handle = statement
        self.database = database
    }

    deinit { sqlite3_finalize(handle) }

    func bind(_ index: Int32, _ text: String) {
        var text = text
        text.withUTF8 { utf8 in
            _ = sqlite3_bind_text(
                handle, index, utf8.baseAddress.map { UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self) },
                Int32(utf8.count), transient())
        }
    }

    func bind(_ index: Int32, _ number: Double) {
        sqlite3_bind_double(handle, index, number)
    }

    /// Steps once: `true` for a row, `false` when done.
    func step() throws -> Bool {
        switch sqlite3_step(handle) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        case let code: throw SQLiteFailure(code: code, message: String(cString: sqlite3_errmsg(database)))
        }
    }

    func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    func text(_ column: Int32) -> String {
        guard let pointer = sqlite3_column_text(handle, column) else { return "" }
        return String(
            decoding: UnsafeBufferPointer(start: pointer, count: Int(sqlite3_column_bytes(handle, column))),
            as: UTF8.self)
    }

    func double(_ column: Int32) -> Double { sqlite3_column_double(handle, column) }
    func int(_ column: Int32) -> Int { Int(sqlite3_column_int64(handle, column)) }

    /// The six columns of a `SELECT id, from_user_key, to_user_key, message, created_ts, type`.
    func message() -> Message {
        Message(
            id: text(0), from_user_key: text(1), to_user_key: text(2), message: text(3), created_ts: double(4),
            type: text(5))
    }

    /// Runs the statement to the end, collecting messages.
    func messages() throws -> [Message] {
        defer { reset() }
        var found: [Message] = []
        while try step() { found.append(message()) }
        return found
    }
}

final class SQLiteBackend: @unchecked Sendable {
    // @unchecked Sendable: the connection is opened SQLITE_OPEN_NOMUTEX and every use goes through
    // `lock`, so one thread at a time touches it and its statements.
    let path: String
    private let database: OpaquePointer
    private let lock = Mutex(())
    private let columns = "id, from_user_key, to_user_key, message, created_ts, type"
    private var insertStatement: Statement!
    private var updateStatement: Statement!
    private var getStatement: Statement!
    private var sinceStatement: Statement!
    private var pairStatement: Statement!
    private var typeStatement: Statement!

    init(path: String) throws {
        self.path = path
        var handle: OpaquePointer?
        let code = sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nil)
        guard code == SQLITE_OK, let handle else {
            sqlite3_close(handle)
            throw SQLiteFailure(code: code, message: "cannot open \(path)")
        }
        database = handle
        try execute("PRAGMA journal_mode = WAL")
        try execute("PRAGMA synchronous = FULL")
        try execute("PRAGMA mmap_size = \(4 << 30)")
        try execute("PRAGMA cache_size = -65536") // 64 MiB
        try execute(
            """
            CREATE TABLE messages (id TEXT PRIMARY KEY NOT NULL, from_user_key TEXT NOT NULL, to_user_key TEXT NOT NULL,
                                   message TEXT NOT NULL, created_ts REAL NOT NULL, type TEXT NOT NULL) WITHOUT ROWID
            """)
        try execute("CREATE INDEX messages_created_ts ON messages (created_ts)")
        try execute("CREATE INDEX messages_from_user_key ON messages (from_user_key)")
        try execute("CREATE INDEX messages_to_user_key ON messages (to_user_key)")
        try prepareStatements()
    }

    private func prepareStatements() throws {
        insertStatement = try Statement(
            "INSERT INTO messages (\(columns)) VALUES (?1, ?2, ?3, ?4, ?5, ?6)", in: database)
        updateStatement = try Statement(
            "UPDATE messages SET from_user_key = ?2, to_user_key = ?3, message = ?4, created_ts = ?5, type = ?6 WHERE id = ?1",
            in: database)
        getStatement = try Statement("SELECT \(columns) FROM messages WHERE id = ?1", in: database)
        sinceStatement = try Statement(
            "SELECT \(columns) FROM messages WHERE created_ts >= ?1 ORDER BY created_ts, id LIMIT 100", in: database)
        pairStatement = try Statement(
            "SELECT \(columns) FROM messages WHERE from_user_key = ?1 AND to_user_key = ?2", in: database)
        typeStatement = try Statement("SELECT \(columns) FROM messages WHERE type = ?1", in: database)
    }

    func close() {
        lock.withLock { _ in
            insertStatement = nil
            updateStatement = nil
            getStatement = nil
            sinceStatement = nil
            pairStatement = nil
            typeStatement = nil
            sqlite3_close(database)
        }
    }

    func execute(_ sql: String) throws {
        var error: UnsafeMutablePointer<CChar>?
        let code = sqlite3_exec(database, sql, nil, nil, &error)
        if code != SQLITE_OK {
            let message = error.map { String(cString: $0) } ?? "error"
            sqlite3_free(error)
            throw SQLiteFailure(code: code, message: "\(message) in \(sql)")
        }
    }

    private func bindAll(_ statement: Statement, _ message: Message) {
        statement.bind(1, message.id)
        statement.bind(2, message.from_user_key)
        statement.bind(3, message.to_user_key)
        statement.bind(4, message.message)
        statement.bind(5, message.created_ts)
        statement.bind(6, message.type)
    }

    private func run(_ statement: Statement) throws {
        defer { statement.reset() }
        _ = try statement.step()
    }

    // MARK: Writing

    /// One transaction holding `messages` (one durable commit).
    func insert(_ messages: some Collection<Message>) throws {
        try lock.withLock { _ in
            try execute("BEGIN")
            do {
                for message in messages {
                    bindAll(insertStatement, message)
                    try run(insertStatement)
                }
                try execute("COMMIT")
            } catch {
                try? execute("ROLLBACK")
                throw error
            }
        }
    }

    /// One row in its own (autocommit) transaction: one durable commit.
    func insertOne(_ message: Message) throws {
        try lock.withLock { _ in
            bindAll(insertStatement, message)
            try run(insertStatement)
        }
    }

    func update(_ messages: some Collection<Message>) throws {
        try lock.withLock { _ in
            try execute("BEGIN")
            do {
                for message in messages {
                    bindAll(updateStatement, message)
                    try run(updateStatement)
                    guard sqlite3_changes(database) == 1 else {
                        throw SQLiteFailure(code: 0, message: "no row \(message.id)")
                    }
                }
                try execute("COMMIT")
            } catch {
                try? execute("ROLLBACK")
                throw error
            }
        }
    }

    func buildPairIndex() throws {
        try lock.withLock { _ in try execute("CREATE INDEX messages_pair ON messages (from_user_key, to_user_key)") }
    }

    /// Rebuilds the database file with its pages packed (`VACUUM`).
    func vacuum() throws {
        try lock.withLock { _ in try execute("VACUUM") }
    }

    /// Folds the WAL back into the database file (after the loads, before measuring sizes).
    func checkpoint() throws {
        try lock.withLock { _ in try execute("PRAGMA wal_checkpoint(TRUNCATE)") }
    }

    // MARK: Reading

    func get(id: String) throws -> Message {
        try lock.withLock { _ in
            getStatement.bind(1, id)
            defer { getStatement.reset() }
            guard try getStatement.step() else { throw SQLiteFailure(code: 0, message: "no row \(id)") }
            return getStatement.message()
        }
    }

    func created(since start: Double) throws -> [Message] {
        try lock.withLock { _ in
            sinceStatement.bind(1, start)
            return try sinceStatement.messages()
        }
    }

    func messages(from sender: String, to recipient: String) throws -> [Message] {
        try lock.withLock { _ in
            pairStatement.bind(1, sender)
            pairStatement.bind(2, recipient)
            return try pairStatement.messages()
        }
    }

    func messages(ofType type: String) throws -> [Message] {
        try lock.withLock { _ in
            typeStatement.bind(1, type)
            return try typeStatement.messages()
        }
    }

    /// The plan SQLite picks for a query (for the report).
    func plan(_ sql: String) throws -> String {
        try lock.withLock { _ in
            let statement = try Statement("EXPLAIN QUERY PLAN " + sql, in: database)
            var lines: [String] = []
            while try statement.step() { lines.append(statement.text(3)) }
            return lines.joined(separator: "; ")
        }
    }

    /// The bytes of the pages `table` (its b-tree, not its indexes') uses (SQLite's `dbstat`,
    /// which a build without it lacks: the statement then fails to prepare).
    func tableBytes(_ table: String) throws -> Int {
        try lock.withLock { _ in
            let statement = try Statement("SELECT sum(pgsize) FROM dbstat WHERE name = ?1", in: database)
            statement.bind(1, table)
            _ = try statement.step()
            return statement.int(0)
        }
    }

    func count() throws -> Int {
        try lock.withLock { _ in
            let statement = try Statement("SELECT count(*) FROM messages", in: database)
            _ = try statement.step()
            return statement.int(0)
        }
    }
}
