import DataStoreCore
import DataStoreKit
import Foundation
import Testing

@testable import DataStorePostgres

/// The change feed's retention by size on PostgreSQL (`ChangeFeedOptions.maxBytes`): the outbox's
/// rows carry their sizes, `_changes_size` their sum, and the writer trims the oldest commits past
/// the bound, with the same typed error as on LMDB for a reader behind the trimmed point.
@Suite(
    "PostgreSQL change feed retention by size",
    .enabled(if: PostgresTestServer.isConfigured, PostgresTestServer.skipReason)
)
struct PostgresChangeRetentionTests {
    static let mapping = ObjectMapping<Document>(idField: "id", encode: { $0 }, decode: { $0 })

    /// A database of its own (the outbox is per database), dropped by `body`'s end.
    static func withDatabase(_ body: (String) async throws -> Void) async throws {
        let database = "dsk_size_\(UUID().uuidString.prefix(8).lowercased())"
        try TestSQL.run("CREATE DATABASE \(database)")
        defer { _ = try? TestSQL.run("DROP DATABASE \(database) WITH (FORCE)") }
        try await body(database)
    }

    /// `sql`'s first column on a connection to `database`, as text.
    static func query(_ database: String, _ sql: String) throws -> [String?] {
        let result = try Connection("dbname=\(database)").execute(sql)
        return (0..<result.rowCount).map { result.text($0, 0) }
    }

    /// Whether every row's size is the one the outbox's creation computes on the server, and the
    /// size table holds their sum.
    static func sizesAgree(_ database: String) throws -> Bool {
        let rowsAgree = try query(
            database,
            """
            SELECT COALESCE(bool_and(bytes = \(Outbox.rowOverhead) + octet_length(collection) + (
                SELECT COALESCE(sum(octet_length(id) + \(Outbox.idOverhead)), 0)
                FROM unnest(inserted || updated || removed) AS id)), true)::text FROM _changes
            """)
        let sumAgrees = try query(
            database,
            "SELECT ((SELECT bytes FROM _changes_size) = (SELECT COALESCE(sum(bytes), 0) FROM _changes))::text")
        return rowsAgree == ["true"] && sumAgrees == ["true"]
    }

    static func save(_ id: String, to notes: PostgresCollection<Document>, in store: PostgresStore) async throws
        -> CommitID
    {
        let context = store.newContext()
        try context.put(
            id: .string(id), object: ["id": .string(id), "text": .string(String(repeating: "x", count: 20))], in: notes)
        return try #require(try await context.save())
    }

    @Test(
        "past the size bound the writer trims the oldest commits, keeping the outbox near it; a trimmed position is .changesTrimmed"
    )
    func trimmedBySize() async throws {
        try await Self.withDatabase { database in
            var options = PostgresStore.Options()
            options.changeFeed.maxAge = nil
            options.changeFeed.maxBytes = 2_000
            let store = try await PostgresStore.open(url: "dbname=\(database)", options: options)
            defer { store.close() }
            let notes = try await store.collection("sized", mapping: Self.mapping)
            var commits: [CommitID] = []
            for index in 0..<40 { commits.append(try await Self.save("n\(index)", to: notes, in: store)) }
            try await PostgresTestServer.awaitHorizon(store, past: try #require(commits.last))
            #expect(try Self.sizesAgree(database))
            let largest = try #require(Int(try Self.query(database, "SELECT max(bytes)::text FROM _changes")[0] ?? ""))
            let kept = try #require(Int(try Self.query(database, "SELECT sum(bytes)::text FROM _changes")[0] ?? ""))
            // Each commit past the bound trims the next batch back within it, deleting no more than it takes.
            #expect(kept > 2_000 - largest && kept <= 2_000 + largest, "the outbox holds \(kept) bytes")
            let oldest = try #require(Int(try Self.query(database, "SELECT min(commit)::text FROM _changes")[0] ?? ""))
            #expect(oldest > commits[0].rawValue)
            let error = #expect(throws: DataStoreError.self) { _ = try store.changes(after: commits[0]) }
            #expect(error?.code == .changesTrimmed)
            let trimmed = try #require(error?.underlying as? ChangesTrimmed)
            #expect(trimmed.requested == commits[0])
            #expect(trimmed.oldestAvailable == CommitID(rawValue: oldest))
            #expect(trimmed.trimmedThrough == commits.last { $0.rawValue < oldest })
            // Resuming right after the newest trimmed commit gives every commit kept, in order.
            let rest = try await PostgresChangeFeedTests.collect(
                try store.changes(after: trimmed.trimmedThrough).recordedSoFar, "sized", count: commits.count)
            #expect(rest.map(\.commit) == commits.filter { $0.rawValue >= oldest })
        }
    }

    @Test("a reader behind the point trimmed away gets .changesTrimmed once its buffered page is used up")
    func trimmedUnderAReader() async throws {
        try await Self.withDatabase { database in
            var kept = PostgresStore.Options()
            kept.changeFeed.maxBytes = nil
            let first = try await PostgresStore.open(url: "dbname=\(database)", options: kept)
            let notes = try await first.collection("behind", mapping: Self.mapping)
            for index in 0..<300 { _ = try await Self.save("n\(index % 5)", to: notes, in: first) }
            var iterator = try first.changes(after: nil).makeAsyncIterator()
            var delivered = [try #require(try await iterator.next())]
            first.close()
            var tight = PostgresStore.Options()
            tight.changeFeed.maxBytes = 1
            let second = try await PostgresStore.open(url: "dbname=\(database)", options: tight)
            defer { second.close() }
            let again = try await second.collection("behind", mapping: Self.mapping)
            // Each commit trims up to 32 rows, the first after opening too (before it knows the size).
            _ = try await Self.save("late", to: again, in: second)
            #expect(try Self.query(database, "SELECT count(*)::text FROM _changes") == ["\(300 + 1 - Outbox.trimStep)"])
            for index in 0..<12 { _ = try await Self.save("late\(index)", to: again, in: second) }
            do {
                while let event = try await iterator.next() { delivered.append(event) }
                Issue.record("the feed ended without telling its reader that commits were trimmed")
            } catch let error as DataStoreError {
                #expect(error.code == .changesTrimmed)
                #expect((error.underlying as? ChangesTrimmed)?.requested == delivered.last?.commit)
            }
            #expect(delivered.count > 1 && delivered.count < 300, "the page read before the trimming, then the error")
            #expect(try Self.sizesAgree(database))
        }
    }

    @Test("an outbox made before rows had sizes gets them, and their sum, when a store opens on it")
    func sizesAddedToAnOlderOutbox() async throws {
        try await Self.withDatabase { database in
            let connection = try Connection("dbname=\(database)")
            try connection.execute(
                """
                CREATE TABLE _changes (commit int8 NOT NULL, seq int4 NOT NULL, time int8 NOT NULL,
                    collection text NOT NULL, inserted bytea[] NOT NULL, updated bytea[] NOT NULL,
                    removed bytea[] NOT NULL, PRIMARY KEY (commit, seq))
                """)
            try connection.execute(
                "CREATE TABLE _changes_trimmed (one bool PRIMARY KEY DEFAULT true CHECK (one), through int8 NOT NULL)")
            try connection.execute(
                "INSERT INTO _changes VALUES (5, 0, 0, 'older', $1::bytea[], '{}', $2::bytea[])",
                [
                    .byteaArray([KeyCodec.encode([.string("a")]), KeyCodec.encode([.int(7)])]),
                    .byteaArray([KeyCodec.encode([.string("gone")])])
                ])
            let store = try await PostgresStore.open(url: "dbname=\(database)")
            defer { store.close() }
            let expected =
                Outbox.rowOverhead + "older".utf8.count
                + [KeyCodec.encode([.string("a")]), KeyCodec.encode([.int(7)]), KeyCodec.encode([.string("gone")])]
                .reduce(0) { $0 + $1.count + Outbox.idOverhead }
            #expect(try Self.query(database, "SELECT bytes::text FROM _changes WHERE commit = 5") == ["\(expected)"])
            #expect(try Self.query(database, "SELECT bytes::text FROM _changes_size") == ["\(expected)"])
            let notes = try await store.collection("older", mapping: Self.mapping)
            _ = try await Self.save("new", to: notes, in: store)
            #expect(try Self.sizesAgree(database))
        }
    }
}
