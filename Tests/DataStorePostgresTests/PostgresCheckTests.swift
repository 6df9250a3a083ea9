import DataStoreCore
import DataStoreKit
import Foundation
import Testing

@testable import DataStorePostgres

/// `statistics()` and `check()`: counts from the server, and every row's keys recomputed and
/// compared, its record decoded and its `jsonb` compared, each damage named.
@Suite("PostgreSQL statistics and check", .enabled(if: PostgresTestServer.isConfigured, PostgresTestServer.skipReason))
struct PostgresCheckTests {
    static let mapping = ObjectMapping<Document>(idField: "id", encode: { $0 }, decode: { $0 })

    static func seeded() async throws -> (PostgresStore, PostgresCollection<Document>, String) {
        let store = try await PostgresTestServer.store()
        let name = PostgresTestServer.uniqueName("checked")
        let collection = try await store.collection(
            name, mapping: Self.mapping,
            indexes: [
                IndexDefinition("n"), IndexDefinition("tags", multiValue: true), IndexDefinition("email", unique: true)
            ])
        try await collection.add(
            contentsOf: (0..<30).map { n in
                [
                    "id": .int(Int64(n)), "n": .int(Int64(n % 7)), "tags": ["a", .string("t\(n % 3)")],
                    "email": .string("u\(n)@x")
                ]
            })
        return (store, collection, try TestSQL.table(of: name))
    }

    @Test("statistics count rows and entries; an intact collection checks clean")
    func intact() async throws {
        let (store, collection, _) = try await Self.seeded()
        defer { store.close() }
        let statistics = try store.statistics()
        let mine = try #require(statistics.collections.first { $0.name == collection.name })
        #expect(mine.documents == 30)
        #expect(mine.indexes.map(\.definition.name) == ["n", "tags", "email"])
        #expect(mine.indexes.map(\.entries) == [30, 60, 30])
        #expect(mine.bytes > 0 && mine.indexes.allSatisfy { $0.bytes > 0 })
        #expect(statistics.serverVersion.hasPrefix("1"))
        #expect(try store.check(collections: [collection.name]).isEmpty)
    }

    @Test("statistics and check read on while another store drops and declares indexes")
    func whileIndexesChange() async throws {
        let (store, collection, _) = try await Self.seeded()
        defer { store.close() }
        let other = try await PostgresTestServer.store()
        defer { other.close() }
        let name = collection.name
        let kept = collection.indexes
        let churn = Task {
            for round in 0..<12 {
                _ = try await other.collection(
                    name, mapping: Self.mapping, indexes: kept + [IndexDefinition("x\(round)")],
                    undeclaredIndexes: .drop)
            }
        }
        for _ in 0..<12 {
            _ = try store.statistics()
            #expect(try store.check(collections: [name]).isEmpty)
        }
        try await churn.value
    }

    @Test("a wrong key, a missing side entry, a stray one, a changed jsonb and an undecodable record are each named")
    func damage() async throws {
        let (store, collection, table) = try await Self.seeded()
        defer { store.close() }
        let key = { (id: Int64) in try collection.layout.idKey(.int(id)) }
        let n = try #require(collection.layout.indexes.first { $0.definition.name == "n" })
        let tags = try #require(collection.layout.indexes.first { $0.definition.name == "tags" })
        try TestSQL.run("UPDATE \(table) SET \(n.keyColumn) = '\\x00'::bytea WHERE id = $1", [.bytes(try key(1))])
        try TestSQL.run(
            "DELETE FROM \(collection.layout.sideTable(tags)) WHERE id = $1 AND key = "
                + "(SELECT key FROM \(collection.layout.sideTable(tags)) WHERE id = $1 ORDER BY key LIMIT 1)",
            [.bytes(try key(2))])
        try TestSQL.run(
            "INSERT INTO \(collection.layout.sideTable(tags)) (key, id) VALUES ('\\xff'::bytea, '\\xfe'::bytea)")
        try TestSQL.run("UPDATE \(table) SET doc = '{\"id\": 3}'::jsonb WHERE id = $1", [.bytes(try key(3))])
        try TestSQL.run("UPDATE \(table) SET record = '\\x99'::bytea WHERE id = $1", [.bytes(try key(4))])
        let problems = try store.check(collections: [collection.name])
        let text = problems.map(\.description)
        #expect(problems.count == 5, "\(text)")
        #expect(problems.contains { $0.index == "n" && $0.message.contains("record 1") })
        #expect(problems.contains { $0.index == "tags" && $0.message.contains("record 2") })
        #expect(problems.contains { $0.index == "tags" && $0.message.contains("1 entries belong to no record") })
        #expect(
            problems.contains { $0.index == nil && $0.message.contains("jsonb") && $0.message.contains("record 3") })
        #expect(problems.contains { $0.index == nil && $0.message.contains("does not decode") })
        #expect(throws: DataStoreError.self) { try store.check(collections: ["no-such-\(UUID())"]) }
    }

    @Test("check reads records in batches bounded in bytes, one larger record alone, and still finds damage")
    func boundedBatches() async throws {
        var options = PostgresStore.Options()
        options.maxDocumentBytes = 4 << 20
        let store = try await PostgresStore.open(url: "", options: options)
        defer { store.close() }
        let name = PostgresTestServer.uniqueName("large")
        let collection = try await store.collection(
            name, mapping: Self.mapping, indexes: [IndexDefinition("n"), IndexDefinition("tags", multiValue: true)])
        // Three documents of 3 MiB and twenty small ones, against batches of 1 MiB.
        let large = String(repeating: "x", count: 3 << 20)
        try await collection.add(
            contentsOf: (0..<3).map { ["id": .int(Int64($0)), "n": .int(Int64($0)), "text": .string(large)] }
                + (3..<23).map { ["id": .int(Int64($0)), "n": .int(Int64($0)), "tags": ["a", "b"]] })
        let clean = try store.check(collections: [name], batchBytes: 1 << 20)
        #expect(clean.problems.isEmpty, "\(clean.problems)")
        #expect(clean.largestBatchBytes > 3 << 20 && clean.largestBatchBytes < (3 << 20) + 1_000)
        let table = try TestSQL.table(of: name)
        try TestSQL.run("UPDATE \(table) SET doc = '{}'::jsonb WHERE id = $1", [.bytes(try collection.layout.idKey(1))])
        let damaged = try store.check(collections: [name], batchBytes: 1 << 20)
        #expect(damaged.problems.count == 1 && damaged.problems[0].message.contains("record 1"), "\(damaged.problems)")
    }
}
