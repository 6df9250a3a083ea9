// The PostgreSQL floor's event log: the store's table layout with one index (`created_ts`), and
// savers that each hold a connection of their own and commit one row per transaction, as an
// application without a coalescing writer would; the server's own group commit (concurrent
// commits sharing a WAL flush) is all the batching they get.
import Foundation

final class LibpqEventLog: Sendable {
    let conninfo: String
    static let table = "floor_events"

    init(conninfo: String) throws {
        self.conninfo = conninfo
        let connection = try LibpqConnection(conninfo)
        defer { connection.close() }
        try connection.execute(
            """
            CREATE TABLE \(Self.table) (id bytea NOT NULL PRIMARY KEY, record bytea NOT NULL, doc jsonb,
                version int8 NOT NULL, k1 bytea, u1 bytea)
            """)
        try connection.execute("CREATE INDEX \(Self.table)_k1 ON \(Self.table) (k1)")
    }

    /// A connection with the insert prepared, for one saver thread.
    func saver() throws -> LibpqConnection {
        let connection = try LibpqConnection(conninfo)
        try connection.prepare(
            "insert",
            "INSERT INTO \(Self.table) (id, record, doc, k1, u1, version) "
                + "VALUES ($1, $2, $3, $4, $5, \(LibpqBackend.version))")
        return connection
    }

    /// Saves `event` in its own transaction (autocommit): one durable commit.
    static func save(_ event: Message, on connection: LibpqConnection) throws {
        let id = RawLayout.idKey(event.id)
        var body: [UInt8] = []
        RawLayout.appendBody(event, to: &body)
        var created: [UInt8] = []
        RawLayout.appendDouble(event.created_ts, to: &created)
        var parameters = LibpqParameters()
        parameters.bytes(id)
        parameters.bytes(body)
        parameters.text(LibpqBackend.json(event))
        parameters.bytes(RawLayout.createdKey(event, idKey: id))
        parameters.bytes(created)
        try connection.run("insert", parameters)
    }

    func count() throws -> Int {
        let connection = try LibpqConnection(conninfo)
        defer { connection.close() }
        return Int(try connection.value("SELECT count(*) FROM \(Self.table)")) ?? -1
    }
}
