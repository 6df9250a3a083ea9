import DataStoreCore
import DataStoreKit
import Foundation
import Testing

@testable import DataStorePostgres

/// How the store declares its tables per engine: on YugabyteDB every key column it scans by range
/// is `ASC` (range sharding, not hash); on PostgreSQL the statements are as they always were.
@Suite("PostgreSQL engines' DDL")
struct PostgresEngineTests {
    static let layout = TableLayout(name: "notes", idField: "id", tag: 7, indexes: [])
    static let index = StoredIndex(definition: IndexDefinition("n"), column: 3, declared: true)

    /// Every statement the store creates tables and b-trees with.
    static func statements(_ engine: PostgresEngine) -> [String] {
        let ddl = TableDDL(engine: engine)
        return [ddl.collectionTable(layout), ddl.keyIndex(index, of: layout), ddl.outboxTable]
            + ddl.sideTable(layout.sideTable(index))
    }

    @Test("on YugabyteDB the primary keys, the side tables and the index b-trees are declared ASC")
    func yugabyteKeysAscend() {
        let ddl = TableDDL(engine: .yugabyteDB)
        #expect(ddl.collectionTable(Self.layout).contains("CONSTRAINT dsk_c7_pkey PRIMARY KEY (id ASC)"))
        #expect(ddl.keyIndex(Self.index, of: Self.layout) == "CREATE INDEX dsk_c7_k3 ON dsk_c7 (k3 ASC)")
        #expect(ddl.outboxTable.contains("PRIMARY KEY (commit ASC, seq ASC)"))
        let side = ddl.sideTable("dsk_c7_m3")
        #expect(side.first?.contains("PRIMARY KEY (key ASC)") == true)
        #expect(side.last == "CREATE INDEX dsk_c7_m3_id ON dsk_c7_m3 (id ASC)")
    }

    @Test("on PostgreSQL no statement names an order: the server's default, as before")
    func postgresLeavesTheOrder() {
        for statement in Self.statements(.postgreSQL) {
            #expect(!statement.contains("ASC"), "\(statement)")
        }
        #expect(
            TableDDL(engine: .postgreSQL).keyIndex(Self.index, of: Self.layout)
                == "CREATE INDEX dsk_c7_k3 ON dsk_c7 (k3)")
    }

    @Test(
        "the ASC b-tree is harmless on PostgreSQL: the server makes the same index as without it",
        .enabled(if: PostgresTestServer.isConfigured, PostgresTestServer.skipReason))
    func ascendingIndexOnPostgres() throws {
        let connection = try Connection("")
        let table = "dsk_asc_\(UUID().uuidString.prefix(8).lowercased())"
        try connection.execute("CREATE TABLE \(table) (id bytea PRIMARY KEY, k3 bytea)")
        defer { _ = try? connection.execute("DROP TABLE \(table)") }
        let layout = TableLayout(name: "asc", idField: "id", tag: 0, indexes: [])
        var ascending = TableDDL(engine: .yugabyteDB).keyIndex(Self.index, of: layout)
        ascending = ascending.replacingOccurrences(of: "dsk_c0", with: table)
        try connection.execute(ascending)
        try connection.execute("CREATE INDEX \(table)_plain ON \(table) (k3)")
        let definitions = try connection.execute(
            "SELECT replace(indexdef, indexname, '') FROM pg_indexes WHERE tablename = $1 AND indexname <> $2 "
                + "ORDER BY indexname", [.text(table), .text("\(table)_pkey")])
        #expect(definitions.rowCount == 2)
        #expect(definitions.text(0, 0) == definitions.text(1, 0))
    }
}
