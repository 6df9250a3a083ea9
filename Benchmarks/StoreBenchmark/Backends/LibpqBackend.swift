// The PostgreSQL floor: hand-written libpq code over the same table layout as the PostgreSQL store
// (docs/postgres.md: id key, record in the store's codec, a jsonb rendering, a version from the
// server's transaction id, and `k<n>`/`u<n>` bytea columns per index with a b-tree on each key
// column), with prepared statements, the same key windows as the store's plans, and the raw LMDB
// backend's hand-written codec. One statement per read, no transaction around it.
import Foundation

final class LibpqBackend: @unchecked Sendable {
    // @unchecked Sendable: the connection is used by the workload driver, one operation at a time.
    let connection: LibpqConnection
    let conninfo: String
    private(set) var hasPairIndex = false
    static let table = "floor_messages"
    static let eventTable = "floor_events"
    static let version = "pg_current_xact_id()::text::int8"

    init(conninfo: String) throws {
        self.conninfo = conninfo
        connection = try LibpqConnection(conninfo)
        try connection.execute(
            """
            CREATE TABLE \(Self.table) (id bytea NOT NULL PRIMARY KEY, record bytea NOT NULL, doc jsonb,
                version int8 NOT NULL, k1 bytea, u1 bytea, k2 bytea, u2 bytea, k3 bytea, u3 bytea)
            """)
        for column in 1...3 {
            try connection.execute("CREATE INDEX \(Self.table)_k\(column) ON \(Self.table) (k\(column))")
        }
        try prepareStatements()
    }

    private func prepareStatements() throws {
        let table = Self.table
        try connection.prepare(
            "insert",
            "INSERT INTO \(table) (id, record, doc, k1, u1, k2, u2, k3, u3, version) "
                + "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, \(Self.version))")
        try connection.prepare("get", "SELECT record FROM \(table) WHERE id = $1")
        try connection.prepare("since", "SELECT record FROM \(table) WHERE k1 >= $1 ORDER BY k1 LIMIT 100")
        try connection.prepare("sender", "SELECT record FROM \(table) WHERE k2 >= $1 AND k2 < $2")
        try connection.prepare("scan", "SELECT record FROM \(table)")
        try connection.prepare("one", "SELECT 1")
        try prepareUpdate()
    }

    private func prepareUpdate() throws {
        let pair = hasPairIndex ? ", k4 = $10, u4 = $11" : ""
        try connection.prepare(
            "update",
            "UPDATE \(Self.table) SET record = $2, doc = $3, k1 = $4, u1 = $5, k2 = $6, u2 = $7, k3 = $8, u3 = $9"
                + "\(pair), version = \(Self.version) WHERE id = $1")
    }

    func close() { connection.close() }

    // MARK: Rows

    /// The row's parameters in the insert's order: id, record, doc, then key and unique value per index.
    static func parameters(_ message: Message, pair: Bool) -> LibpqParameters {
        var parameters = LibpqParameters()
        let id = RawLayout.idKey(message.id)
        var body: [UInt8] = []
        RawLayout.appendBody(message, to: &body)
        parameters.bytes(id)
        parameters.bytes(body)
        parameters.text(json(message))
        var created: [UInt8] = []
        RawLayout.appendDouble(message.created_ts, to: &created)
        parameters.bytes(RawLayout.createdKey(message, idKey: id))
        parameters.bytes(created)
        for value in [message.from_user_key, message.to_user_key] {
            var unique: [UInt8] = []
            RawLayout.appendString(value, to: &unique)
            parameters.bytes(RawLayout.stringKey(value, idKey: id))
            parameters.bytes(unique)
        }
        if pair {
            var unique: [UInt8] = []
            RawLayout.appendString(message.from_user_key, to: &unique)
            RawLayout.appendString(message.to_user_key, to: &unique)
            parameters.bytes(RawLayout.pairKey(message, idKey: id))
            parameters.bytes(unique)
        }
        return parameters
    }

    /// The jsonb rendering, written by hand for the one shape.
    static func json(_ message: Message) -> String {
        func quoted(_ text: String) -> String {
            var out = "\""
            for scalar in text.unicodeScalars {
                switch scalar {
                case "\"": out += "\\\""
                case "\\": out += "\\\\"
                case _ where scalar.value < 0x20: out += String(format: "\\u%04x", scalar.value)
                default: out.unicodeScalars.append(scalar)
                }
            }
            return out + "\""
        }
        return "{\"id\":\(quoted(message.id)),\"from_user_key\":\(quoted(message.from_user_key)),"
            + "\"to_user_key\":\(quoted(message.to_user_key)),\"message\":\(quoted(message.message)),"
            + "\"created_ts\":\(message.created_ts),\"type\":\(quoted(message.type))}"
    }

    // MARK: Writing

    /// `messages` in one transaction, as one pipeline (one round trip).
    func insert(_ messages: some Collection<Message>) throws {
        let statements = messages.map { LibpqStatement.prepared("insert", Self.parameters($0, pair: false)) }
        try connection.pipeline([.sql("BEGIN")] + statements + [.sql("COMMIT")])
    }

    /// Replaces `messages` (every one stored) in one transaction, as one pipeline.
    func update(_ messages: some Collection<Message>) throws {
        let statements = messages.map { LibpqStatement.prepared("update", Self.parameters($0, pair: hasPairIndex)) }
        try connection.pipeline([.sql("BEGIN")] + statements + [.sql("COMMIT")])
    }

    /// Adds the compound index's columns, fills them in one transaction (pipelines of 1 000
    /// updates), then builds its b-tree.
    func buildPairIndex() throws {
        try connection.execute("ALTER TABLE \(Self.table) ADD COLUMN k4 bytea, ADD COLUMN u4 bytea")
        try connection.prepare("fill", "UPDATE \(Self.table) SET k4 = $2, u4 = $3 WHERE id = $1")
        try connection.execute("BEGIN")
        let rows = try connection.run("scan")
        var statements: [LibpqStatement] = []
        for row in 0..<rows.rowCount {
            let message = try RawLayout.decode(rows.bytes(row, 0), from: 0)
            let id = RawLayout.idKey(message.id)
            var unique: [UInt8] = []
            RawLayout.appendString(message.from_user_key, to: &unique)
            RawLayout.appendString(message.to_user_key, to: &unique)
            var parameters = LibpqParameters()
            parameters.bytes(id)
            parameters.bytes(RawLayout.pairKey(message, idKey: id))
            parameters.bytes(unique)
            statements.append(.prepared("fill", parameters))
            if statements.count == 1_000 || row == rows.rowCount - 1 {
                try connection.pipeline(statements)
                statements.removeAll(keepingCapacity: true)
            }
        }
        try connection.execute("COMMIT")
        try connection.execute("CREATE INDEX \(Self.table)_k4 ON \(Self.table) (k4)")
        try connection.prepare("pair", "SELECT record FROM \(Self.table) WHERE k4 >= $1 AND k4 < $2")
        hasPairIndex = true
        try connection.execute("DEALLOCATE update")
        try prepareUpdate()
    }

    // MARK: Reading

    private func messages(_ result: LibpqResult) throws -> [Message] {
        var found: [Message] = []
        found.reserveCapacity(result.rowCount)
        for row in 0..<result.rowCount { found.append(try RawLayout.decode(result.bytes(row, 0), from: 0)) }
        return found
    }

    /// The window `[prefix, successor of prefix)` of an equality on a key column.
    private static func window(_ prefix: [UInt8]) -> LibpqParameters {
        var parameters = LibpqParameters()
        var end = prefix
        end[end.count - 1] += 1 // every prefix ends with the component's 00 01
        parameters.bytes(prefix)
        parameters.bytes(end)
        return parameters
    }

    // The reads take `prepared: false` to send the same statement unprepared, as the store does.

    func get(id: String, prepared: Bool = true) throws -> Message {
        var parameters = LibpqParameters()
        parameters.bytes(RawLayout.idKey(id))
        let result = try connection.run("get", parameters, prepared: prepared)
        guard result.rowCount == 1 else { throw LibpqFailure("no row \(id)") }
        return try RawLayout.decode(result.bytes(0, 0), from: 0)
    }

    func created(since start: Double, prepared: Bool = true) throws -> [Message] {
        var bound: [UInt8] = []
        RawLayout.appendDouble(start, to: &bound)
        var parameters = LibpqParameters()
        parameters.bytes(bound)
        return try messages(connection.run("since", parameters, prepared: prepared))
    }

    /// Sender and recipient: the compound index's window when it exists, else the sender index's
    /// window with the recipient checked on the record bytes (the store's plan).
    func messages(from sender: String, to recipient: String, prepared: Bool = true) throws -> [Message] {
        var prefix: [UInt8] = []
        RawLayout.appendString(sender, to: &prefix)
        if hasPairIndex {
            RawLayout.appendString(recipient, to: &prefix)
            return try messages(connection.run("pair", Self.window(prefix), prepared: prepared))
        }
        let result = try connection.run("sender", Self.window(prefix), prepared: prepared)
        var found: [Message] = []
        for row in 0..<result.rowCount {
            let record = result.bytes(row, 0)
            let fields = try RawLayout.fields(of: record, from: 0)
            if RawLayout.equals(record, fields.to, recipient) { found.append(RawLayout.message(record, fields)) }
        }
        return found
    }

    /// Every record read, those of `type` decoded.
    func messages(ofType type: String, prepared: Bool = true) throws -> [Message] {
        let result = try connection.run("scan", prepared: prepared)
        var found: [Message] = []
        for row in 0..<result.rowCount {
            let record = result.bytes(row, 0)
            let fields = try RawLayout.fields(of: record, from: 0)
            if RawLayout.equals(record, fields.type, type) { found.append(RawLayout.message(record, fields)) }
        }
        return found
    }

    /// One `SELECT 1`: the server's round trip and nothing else.
    func roundTrip() throws -> Int {
        try connection.run("one").rowCount
    }

    /// Gathers the planner's statistics for every table of the database (both backends' tables).
    func analyze() throws {
        try connection.execute("ANALYZE")
    }

    func count() throws -> Int {
        Int(try connection.value("SELECT count(*) FROM \(Self.table)")) ?? -1
    }
}
