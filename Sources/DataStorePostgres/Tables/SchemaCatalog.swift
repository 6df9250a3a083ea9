import DataStoreCore
import DataStoreEngine
import Foundation

/// The `_meta` table: each collection's table number, id field and indexes.
///
/// Every change runs in one transaction holding an advisory lock, so processes that declare
/// the same collection at once apply one declaration after the other.
enum SchemaCatalog {
    /// The advisory lock key of schema changes (any fixed number: "DSK" in ASCII).
    static let lockKey: Int64 = 0x44_534B
    /// The first of the two keys of each collection's advisory lock (the second is its tag):
    /// a declaration holds it alone while it changes the collection, each write batch shares it
    /// for every collection it writes, so that a declaration stalls that collection's writers only.
    static let collectionLockSpace: Int64 = 0x44_534C

    static let createMeta = """
        CREATE TABLE IF NOT EXISTS _meta (
            collection text PRIMARY KEY,
            tag integer NOT NULL UNIQUE,
            id_field text NOT NULL,
            indexes bytea NOT NULL)
        """

    /// The stored layout of `name`, or `nil`.
    static func load(_ name: String, on connection: Connection) throws(PostgresError) -> TableLayout? {
        let result = try connection.execute(
            "SELECT tag::int8, id_field, indexes FROM _meta WHERE collection = $1", [.text(name)])
        guard result.rowCount == 1, let tag = result.int(0, 0), let idField = result.text(0, 1),
            let encoded = result.bytes(0, 2)
        else { return nil }
        return TableLayout(
            name: name, idField: idField, tag: Int(tag), indexes: indexes(decoding: encoded), encoded: encoded)
    }

    /// The bytes `_meta` holds for `indexes`.
    static func encode(_ indexes: [StoredIndex]) -> [UInt8] {
        Array((try? JSONEncoder().encode(indexes)) ?? Data("[]".utf8))
    }

    /// The bytes `_meta` holds for the index list of collection `name`, or `nil` when it is not stored.
    static func storedIndexes(of name: String, on connection: Connection) throws(PostgresError) -> [UInt8]? {
        try connection.execute("SELECT indexes FROM _meta WHERE collection = $1", [.text(name)]).bytes(0, 0)
    }

    /// The index list `_meta` holds in `encoded`.
    static func indexes(decoding encoded: [UInt8]) -> [StoredIndex] {
        (try? JSONDecoder().decode([StoredIndex].self, from: Data(encoded))) ?? []
    }

    /// The names of every collection stored.
    static func names(on connection: Connection) throws(PostgresError) -> [String] {
        let result = try connection.execute("SELECT collection FROM _meta ORDER BY collection")
        return (0..<result.rowCount).compactMap { result.text($0, 0) }
    }

    /// Records `layout`'s index list.
    static func save(_ layout: TableLayout, indexes: [StoredIndex], on connection: Connection) throws {
        try connection.execute(
            "UPDATE _meta SET indexes = $2 WHERE collection = $1", [.text(layout.name), .bytes(encode(indexes))])
    }

    /// Creates the table of a new collection, as `ddl` declares tables, and records it.
    static func create(_ name: String, idField: String, ddl: TableDDL, on connection: Connection) throws
        -> TableLayout
    {
        let next = try connection.execute("SELECT (COALESCE(MAX(tag), 0) + 1)::int8 FROM _meta")
        let tag = Int(next.int(0, 0) ?? 1)
        let layout = TableLayout(name: name, idField: idField, tag: tag, indexes: [])
        try connection.execute(ddl.collectionTable(layout))
        try connection.execute(
            "INSERT INTO _meta (collection, tag, id_field, indexes) VALUES ($1, $2, $3, $4)",
            [.text(name), .int(Int64(tag)), .text(idField), .bytes(Array("[]".utf8))])
        return layout
    }
}
