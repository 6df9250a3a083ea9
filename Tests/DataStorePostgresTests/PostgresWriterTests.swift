import DataStoreCore
import DataStoreKit
import Foundation
import Testing

@testable import DataStorePostgres

/// The writer: change sets in batches, each under its own savepoint, named errors from the
/// server's constraints, optimistic conflicts by version, retries of serialization failures.
@Suite("PostgreSQL writer", .enabled(if: PostgresTestServer.isConfigured, PostgresTestServer.skipReason))
struct PostgresWriterTests {
    static let mapping = ObjectMapping<Document>(idField: "id", encode: { $0 }, decode: { $0 })

    @Test("hostile collection, index and field names and values are bound, never spliced into SQL")
    func hostileNames() async throws {
        let store = try await PostgresTestServer.store()
        defer { store.close() }
        let name = "x\"; DROP TABLE _meta; -- '\(UUID().uuidString.prefix(6))"
        let field = "f');DELETE/**/FROM/**/_meta;--\""
        let collection = try await store.collection(
            name, mapping: Self.mapping, indexes: [IndexDefinition("i\"dx", fields: [.init(field)], unique: true)])
        let value = Value.string("'; DROP TABLE _meta; --\u{0}\"$1")
        _ = try await collection.add(object: ["id": "a'b", .init(stringLiteral: field): value])
        let found = try await collection.query(params: [field: value], options: nil)
        #expect(found.map { $0["id"] } == [.string("a'b")])
        #expect(collection.explainPlan(params: [field: value]).contains("index scan of i\"dx"))
        #expect(try store.collectionNames().contains(name))
        await #expect(throws: DataStoreError.self) {
            _ = try await collection.add(object: ["id": "other", .init(stringLiteral: field): value])
        }
    }

    @Test("a unique violation is the LMDB store's named error, and its change set leaves nothing behind")
    func uniqueViolation() async throws {
        let store = try await PostgresTestServer.store()
        defer { store.close() }
        let collection = try await store.collection(
            PostgresTestServer.uniqueName("users"), mapping: Self.mapping,
            indexes: [IndexDefinition("email", unique: true)])
        _ = try await collection.add(object: ["id": "1", "email": "a@x"])
        do {
            try await collection.add(contentsOf: [["id": "2", "email": "b@x"], ["id": "3", "email": "a@x"]])
            Issue.record("a duplicate email was accepted")
        } catch let error as DataStoreError {
            #expect(error.code == .uniqueViolation)
            #expect(error.message.contains("unique index email on"), "\(error)")
        }
        #expect(try await collection.all().map { $0["id"] } == [.string("1")])
        do {
            _ = try await collection.add(object: ["id": "1", "email": "c@x"])
            Issue.record("a stored id was added again")
        } catch let error as DataStoreError {
            #expect(error.code == .duplicateID)
        }
        // Values cut alike in their keys are still different values.
        let long = String(repeating: "q", count: 700)
        _ = try await collection.add(object: ["id": "4", "email": .string(long + "1")])
        _ = try await collection.add(object: ["id": "5", "email": .string(long + "2")])
        #expect(try await collection.count(params: nil) == 3)
    }

    @Test("concurrent saves share batches; a failing change set is rolled back alone")
    func coalescing() async throws {
        let store = try await PostgresTestServer.store()
        defer { store.close() }
        let collection = try await store.collection(
            PostgresTestServer.uniqueName("batch"), mapping: Self.mapping,
            indexes: [IndexDefinition("n", unique: true)])
        let before = store.writerBatches
        let outcomes = await withTaskGroup(of: Bool.self) { group in
            for n in 0..<64 {
                // Every eighth save reuses n = 0 and must fail alone.
                group.addTask {
                    (try? await collection.add(object: ["id": .string("s\(n)"), "n": .int(n % 8 == 7 ? 0 : Int64(n))]))
                        != nil
                }
            }
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        let after = store.writerBatches
        #expect(outcomes.filter { $0 }.count == 56)
        #expect(try await collection.count(params: nil) == 56)
        #expect(after.changeSets - before.changeSets == 56)
        #expect(after.batches - before.batches < 64, "every save committed alone: \(after.batches - before.batches)")
    }

    @Test("a write expecting an older version is a conflict; one expecting the stored version commits")
    func versionConflict() async throws {
        let store = try await PostgresTestServer.store()
        defer { store.close() }
        let collection = try await store.collection(PostgresTestServer.uniqueName("versions"), mapping: Self.mapping)
        let (_, first) = try await store.writer.submit(
            [
                .insert(
                    try PreparedRow(["v": 1], id: "k", layout: collection.layout), collection.layout,
                    expectingAbsent: true)
            ])
        let (_, second) = try await store.writer.submit(
            [
                .upsert(
                    try PreparedRow(["v": 2], id: "k", layout: collection.layout), collection.layout,
                    version: Int(first))
            ])
        #expect(second > first)
        do {
            _ = try await store.writer.submit(
                [
                    .upsert(
                        try PreparedRow(["v": 3], id: "k", layout: collection.layout), collection.layout,
                        version: Int(first))
                ])
            Issue.record("a stale version was written")
        } catch let error as DataStoreError {
            #expect(error.code == .conflict)
        }
        #expect(try await collection.get(id: "k")["v"] == .int(2))
    }

    @Test("a serialization failure (40001) is retried and the change set commits once")
    func serializationFailureRetried() async throws {
        let store = try await PostgresTestServer.store()
        defer { store.close() }
        let name = PostgresTestServer.uniqueName("retry")
        let collection = try await store.collection(name, mapping: Self.mapping)
        let table = try TestSQL.table(of: name)
        // A sequence counts attempts: unlike a table, it is not rolled back with the attempt.
        let attempts = "\(table)_attempts"
        try TestSQL.run("CREATE SEQUENCE \(attempts)")
        try TestSQL.run(
            """
            CREATE FUNCTION \(table)_fail_once() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                IF nextval('\(attempts)') = 1 THEN
                    RAISE EXCEPTION 'forced' USING ERRCODE = '40001';
                END IF;
                RETURN NEW;
            END $$
            """)
        try TestSQL.run(
            "CREATE TRIGGER fail_once BEFORE INSERT ON \(table) FOR EACH ROW EXECUTE FUNCTION \(table)_fail_once()")
        _ = try await collection.add(object: ["id": "once", "x": 1])
        #expect(try TestSQL.run("SELECT last_value::text FROM \(attempts)") == ["2"])
        #expect(try await collection.all().map { $0["id"] } == [.string("once")])
    }

    @Test("a serialization failure at COMMIT (a deferred check) retries the batch; its change sets commit once")
    func serializationFailureAtCommitRetried() async throws {
        let store = try await PostgresTestServer.store()
        defer { store.close() }
        let name = PostgresTestServer.uniqueName("commitretry")
        let collection = try await store.collection(name, mapping: Self.mapping)
        let table = try TestSQL.table(of: name)
        let attempts = "\(table)_attempts"
        try TestSQL.run("CREATE SEQUENCE \(attempts)")
        try TestSQL.run(
            """
            CREATE FUNCTION \(table)_fail_commit_once() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                IF nextval('\(attempts)') = 1 THEN
                    RAISE EXCEPTION 'forced at commit' USING ERRCODE = '40001';
                END IF;
                RETURN NEW;
            END $$
            """)
        // A deferred constraint trigger runs at COMMIT, as a serializable engine's check does.
        try TestSQL.run(
            "CREATE CONSTRAINT TRIGGER fail_commit_once AFTER INSERT ON \(table) DEFERRABLE INITIALLY DEFERRED "
                + "FOR EACH ROW EXECUTE FUNCTION \(table)_fail_commit_once()")
        let start = CommitID(rawValue: try store.changeSource.lastCommit())
        _ = try await collection.add(object: ["id": "once", "x": 1])
        #expect(try TestSQL.run("SELECT last_value::text FROM \(attempts)") == ["2"])
        #expect(try await collection.all().map { $0["id"] } == [.string("once")])
        // The outbox row of the failed attempt was rolled back with it: one event.
        let events = try await PostgresChangeFeedTests.collect(try store.changes(after: start), name, count: 1)
        #expect(events.count == 1)
        #expect(try TestSQL.run("SELECT count(*)::text FROM _changes WHERE collection = $1", [.text(name)]) == ["1"])
    }

    @Test("at most `readers` reads reach the server at once, and many callers all get answers")
    func readerThreads() async throws {
        let store = try await PostgresTestServer.store(options: PostgresStore.Options(readers: 2))
        defer { store.close() }
        let collection = try await store.collection(PostgresTestServer.uniqueName("readers"), mapping: Self.mapping)
        try await collection.add(contentsOf: (0..<20).map { ["id": .int(Int64($0))] })
        let counts = try await withThrowingTaskGroup(of: Int.self) { group in
            for n in 0..<64 {
                group.addTask {
                    n % 2 == 0 ? try await collection.count(params: nil) : try await collection.all().count
                }
            }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(counts == Array(repeating: 20, count: 64))
        // Two slots, held by awaited reads and reader-thread reads alike: no more than two
        // connections were ever made for reads.
        #expect(store.pool.made <= 3, "\(store.pool.made) connections: reads escaped the slots")
        store.close()
        await #expect(throws: DataStoreError.self) { _ = try await collection.all() }
    }
}

extension PostgresCollection {
    /// The plan's text, for tests.
    func explainPlan(params: [String: Value]) -> String {
        (try? explain(params: params).description) ?? ""
    }
}
