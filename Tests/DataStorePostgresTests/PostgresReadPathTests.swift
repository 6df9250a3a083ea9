import DataStoreCore
import DataStoreKit
import Testing

@testable import DataStorePostgres

/// The statement cache on its own: least recently used goes first.
@Suite("PostgreSQL statement cache")
struct StatementCacheTests {
    @Test("a full cache gives up its least recently used statement, and a used one stays")
    func leastRecentlyUsedGoes() {
        var cache = StatementCache(capacity: 2)
        for sql in ["a", "b"] {
            let (name, evicted) = cache.reserve()
            #expect(evicted == nil)
            cache.insert(SQLText(sql), name: name)
        }
        let nameOfA = cache.name(of: SQLText("a"))
        #expect(nameOfA != nil)
        let (name, evicted) = cache.reserve()
        cache.insert(SQLText("c"), name: name)
        #expect(evicted != nil && evicted != nameOfA)
        #expect(cache.name(of: SQLText("b")) == nil)
        #expect(cache.name(of: SQLText("a")) == nameOfA)
        #expect(cache.count == 2)
        cache.removeAll()
        #expect(cache.name(of: SQLText("a")) == nil && cache.count == 0)
    }
}

/// Whether an awaited run waits on its caller, from the statement's last answer time.
@Suite("PostgreSQL statement answer times")
struct StatementAnswerTimeTests {
    @Test("a statement answered after the window skips the wait, but waits every eighth run and once quick")
    func slowStatementWaitsAgain() {
        var cache = StatementCache(capacity: 4)
        let sql = SQLText("s")
        cache.insert(sql, name: cache.reserve().name)
        #expect(cache.useAwaited(sql, windowNanoseconds: 1_000)?.waits == true)
        cache.noteAnswer(of: sql, nanoseconds: 5_000)
        let waits = (0..<StatementCache.waitAgainEvery).map { _ in
            cache.useAwaited(sql, windowNanoseconds: 1_000)?.waits
        }
        #expect(waits == Array(repeating: false, count: StatementCache.waitAgainEvery - 1) + [true])
        #expect(cache.useAwaited(sql, windowNanoseconds: 1_000)?.waits == false)
        cache.noteAnswer(of: sql, nanoseconds: 900)
        #expect(cache.useAwaited(sql, windowNanoseconds: 1_000)?.waits == true)
        #expect(cache.useAwaited(SQLText("unprepared"), windowNanoseconds: 1_000) == nil)
    }
}

/// The read path: prepared statements, one statement where one answers, whole-table scans
/// without a server-side sort.
@Suite("PostgreSQL read path", .enabled(if: PostgresTestServer.isConfigured, PostgresTestServer.skipReason))
struct PostgresReadPathTests {
    static let mapping = ObjectMapping<Document>(idField: "id", encode: { $0 }, decode: { $0 })

    @Test("a statement is prepared once per connection, survives DEALLOCATE ALL, and the cache stays bounded")
    func preparedStatements() throws {
        let connection = try Connection("", statementCapacity: 2)
        for value in [1, 2, 3] as [Int64] {
            let result = try connection.executePrepared("SELECT $1::int8 + 1", [.int(value)])
            #expect(result.int(0, 0) == value + 1)
        }
        #expect(connection.preparedStatementCount == 1)
        // The session loses its statements behind the cache's back: the next run prepares again.
        try connection.execute("DEALLOCATE ALL")
        #expect(try connection.executePrepared("SELECT $1::int8 + 1", [.int(9)]).int(0, 0) == 10)
        for sql in ["SELECT 2::int8", "SELECT 3::int8", "SELECT 4::int8"] {
            _ = try connection.executePrepared(sql)
        }
        #expect(connection.preparedStatementCount == 2)
        let onServer = try connection.execute("SELECT count(*)::int8 FROM pg_prepared_statements")
        #expect(onServer.int(0, 0) == 2)
        // A statement with an error is neither kept nor fatal to the connection.
        #expect(throws: PostgresError.self) { try connection.executePrepared("SELECT nonsense FROM nowhere") }
        #expect(try connection.executePrepared("SELECT 4::int8").int(0, 0) == 4)
    }

    @Test("a pipeline prepares its statements in the same round trip; one that cannot be prepared fails alone")
    func pipelinedPreparation() throws {
        let connection = try Connection("", statementCapacity: 8)
        let add = "SELECT $1::int8 + 1"
        let outcomes = try connection.pipeline([(add, [.int(1)]), ("SELECT 7", []), (add, [.int(2)])])
        let sums = outcomes.map { outcome -> Int64? in
            if case .done(let result) = outcome { result.int(0, 0) } else { nil }
        }
        #expect(sums == [2, 7, 3])
        #expect(connection.preparedStatementCount == 1)
        let failing = try connection.pipeline([("SELECT $1::int8 FROM nowhere", [.int(1)]), (add, [.int(5)])])
        guard case .failed(let error) = failing[0], case .skipped = failing[1] else {
            Issue.record("expected the bad statement to fail and the next to be skipped: \(failing)")
            return
        }
        #expect(error.code == .undefinedTable)
        #expect(connection.preparedStatementCount == 1)
        let again = try connection.pipeline([(add, [.int(9)])])
        guard case .done(let result) = again[0] else {
            Issue.record("expected the prepared statement to run: \(again)")
            return
        }
        #expect(result.int(0, 0) == 10)
    }

    @Test("reads are planned once per session, as the store's planner chose: no bitmap scan, a nested loop")
    func plannedOncePerSession() async throws {
        let store = try await PostgresTestServer.store()
        defer { store.close() }
        let collection = try await store.collection(
            PostgresTestServer.uniqueName("generic"), mapping: Self.mapping,
            indexes: [IndexDefinition("pair", fields: ["a", "b"]), IndexDefinition("tags", multiValue: true)])
        var documents: [Document] = []
        for n in 0..<300 {
            var document = Document()
            document["id"] = .int(Int64(n))
            document["a"] = .int(Int64(n % 10))
            document["b"] = .int(Int64(n % 7))
            document["tags"] = .array([.string("t\(n % 5)")])
            documents.append(document)
        }
        try await collection.add(contentsOf: documents)
        // The synchronous form, which reads through the pool on this thread.
        func count(_ params: [String: Value]) throws -> Int {
            try collection.query(Query(params: params, options: nil)).count
        }
        for n in 0..<8 {
            let expected = documents.filter { $0["a"] == .int(Int64(n)) && $0["b"] == .int(Int64(n)) }.count
            #expect(try count(["a": .int(Int64(n)), "b": .int(Int64(n))]) == expected)
            #expect(try count(["tags": .string("t\(n % 5)")]) == 60)
        }
        // Sequential reads take the same pooled connection, so its statements are the ones above.
        let plans = try store.pool.read("reading the session's statements") { connection in
            let result = try connection.execute(
                "SELECT statement, generic_plans, custom_plans FROM pg_prepared_statements WHERE statement LIKE '%ORDER BY%'"
            )
            return (0..<result.rowCount).map { (result.text($0, 0) ?? "", result.int($0, 1), result.int($0, 2)) }
        }
        #expect(plans.count == 2, "\(plans)")
        for (statement, generic, custom) in plans {
            #expect(generic == 8 && custom == 0, "\(statement): \(generic) generic, \(custom) custom plans")
        }
        // Never a bitmap scan; once autovacuum has counted the table's 300 rows (five pages),
        // reading it whole may rightly cost less than the index, so either scan is the server's.
        let window = try collection.explainOnServer(params: ["a": 1, "b": 1])
        #expect(
            (window.contains("Index Scan") || window.contains("Seq Scan")) && !window.contains("Bitmap"), "\(window)")
        let side = try collection.explainOnServer(params: ["tags": .string("t1")])
        #expect(side.contains("Nested Loop") && !side.contains("Hash") && !side.contains("Bitmap"), "\(side)")
    }

    @Test("a setting the server does not know is skipped; the others are applied")
    func unknownSettingsSkipped() throws {
        let connection = try Connection(
            "", settings: [("dsk_no_such_setting", "on"), ("enable_bitmapscan", "off"), ("plan_cache_mode", "auto")])
        #expect(try connection.execute("SHOW enable_bitmapscan").text(0, 0) == "off")
        let error = #expect(throws: PostgresError.self) {
            try Connection("", settings: [("enable_bitmapscan", "sideways")])
        }
        #expect(error?.code.rawValue == "22023", "a bad value is not skipped")
    }

    @Test("a limited scan whose first page answers is one statement; one that needs a second page says so")
    func singleStatementScans() async throws {
        let store = try await PostgresTestServer.store()
        defer { store.close() }
        let collection = try await store.collection(
            PostgresTestServer.uniqueName("pages"), mapping: Self.mapping, indexes: [IndexDefinition("n")])
        try await collection.add(
            contentsOf: (0..<60).map { ["id": .int(Int64($0)), "n": .int(Int64($0)), "odd": .bool($0 % 2 == 1)] })
        let connection = try Connection("")
        func run(_ params: [String: Value], limit: Int) throws -> [Value]? {
            let query = try Query(params: params, options: ["limit": .int(Int64(limit))])
            let runner = try PostgresQueryRunner(layout: collection.layout, plan: collection.layout.plan(query))
            return try runner.run(on: connection, singleStatement: true) { body, _ in
                try RecordCodec.decode(body)["id"] ?? .null
            }
        }
        #expect(try run(["n >=": 10], limit: 5) == (10..<15).map { .int(Int64($0)) })
        // Half the candidates fail the re-check, so the first page of 16 holds 8 of the 12 wanted.
        #expect(try run(["n >=": 0, "odd": true], limit: 12) == nil)
        let answer = try await collection.query(params: ["n >=": 0, "odd": true], options: ["limit": 12])
        #expect(answer.map { $0["id"] } == stride(from: 1, to: 24, by: 2).map { .int(Int64($0)) })
    }

    @Test(
        "an id scan and one window of a single-value index read records alone, and page after keys computed from them")
    func leanScansPage() async throws {
        let store = try await PostgresTestServer.store()
        defer { store.close() }
        let collection = try await store.collection(
            PostgresTestServer.uniqueName("lean"), mapping: Self.mapping,
            indexes: [IndexDefinition("n"), IndexDefinition("s")])
        // Strings longer than a key component's budget, alike for 600 bytes and in the opposite
        // order to the ids: their keys are cut and told apart only by the record key at their end.
        let prefix = String(repeating: "p", count: 600)
        var documents: [Document] = []
        for number in 0..<60 {
            let s: Value = .string(prefix + String(format: "%03d", 59 - number))
            documents.append([
                "id": .int(Int64(number)), "n": .int(Int64(number)), "odd": .bool(number % 2 == 1), "s": s
            ])
        }
        try await collection.add(contentsOf: documents)
        func statement(_ params: [String: Value]) throws -> String {
            let plan = collection.layout.plan(try Query(params: params, options: ["limit": 5]))
            return try #require(try PostgresQueryRunner(layout: collection.layout, plan: plan).firstStatement).sql.text
        }
        #expect(try statement(["n >=": 3]).hasPrefix("SELECT t.record, t.version FROM"))
        #expect(try statement(["odd": true]).hasPrefix("SELECT t.record, t.version FROM"))
        // Several windows may meet a record twice: their rows carry the id to tell them apart.
        #expect(try statement(["n in": [3, 40]]).hasPrefix("SELECT t.id, t.record, t.version, t.k"))
        let odd = stride(from: 1, to: 60, by: 2).map { Value.int(Int64($0)) }
        // Half the candidates fail the re-check: every query needs pages after the first.
        let forward = try await collection.query(params: ["n >=": 0, "odd": true], options: ["limit": 25])
        #expect(forward.map { $0["id"] } == Array(odd.prefix(25)))
        let backward = try await collection.query(
            params: ["n >=": 0, "odd": true], options: ["limit": 25, "sort": ["n": ["ascending": false]]])
        #expect(backward.map { $0["id"] } == Array(odd.reversed().prefix(25)))
        let byID = try await collection.query(params: ["id >=": 10, "odd": true], options: ["limit": 12])
        #expect(byID.map { $0["id"] } == stride(from: 11, to: 35, by: 2).map { .int(Int64($0)) })
        // Cut keys alike but for their record keys: scan order is id order, as on LMDB.
        let cut = try await collection.query(params: ["s >=": .string(prefix), "odd": true], options: ["limit": 25])
        #expect(cut.map { $0["id"] } == Array(odd.prefix(25)))
        let context = store.newContext()
        let staged = try context.query(collection, params: ["n >=": 0, "odd": true], options: ["limit": 25])
        #expect(staged.map { $0["id"] } == Array(odd.prefix(25)))
        // The versions it read are the stored ones: nothing changed underneath, so the save goes
        // through; a record changed underneath another such read is a conflict.
        _ = try context.add(["id": 1_000, "n": 1_000], to: collection)
        try await context.save()
        let second = store.newContext()
        _ = try second.query(collection, params: ["n >=": 0, "odd": true], options: ["limit": 25])
        _ = try second.add(["id": 1_001, "n": 1_001], to: collection)
        _ = try await collection.put(id: 3, object: ["id": 3, "n": 3, "odd": true, "s": "changed"])
        let conflict = await #expect(throws: DataStoreError.self) { try await second.save() }
        #expect(conflict?.code == .conflict)
    }

    @Test("an id field whose name has a dot is read whole from the record when a scan pages or sorts by id")
    func dottedIDField() async throws {
        let store = try await PostgresTestServer.store()
        defer { store.close() }
        let collection = try await store.collection(
            PostgresTestServer.uniqueName("dotted"),
            mapping: ObjectMapping<Document>(idField: "my.id", encode: { $0 }, decode: { $0 }),
            indexes: [IndexDefinition("n")])
        // A nested `my.id` that would be found if the name were taken for a path.
        var documents: [Document] = []
        for number in 0..<40 {
            documents.append([
                "my.id": .int(Int64(39 - number)), "my": ["id": .int(Int64(number))], "n": .int(Int64(number)),
                "odd": .bool(number % 2 == 1)
            ])
        }
        try await collection.add(contentsOf: documents)
        let byIndex = try await collection.query(params: ["n >=": 0, "odd": true], options: ["limit": 12])
        #expect(byIndex.map { $0["n"] } == stride(from: 1, to: 24, by: 2).map { .int(Int64($0)) })
        let byID = try await collection.query(params: ["my.id >=": 0, "odd": true], options: ["limit": 12])
        #expect(byID.map { $0["my.id"] } == stride(from: 0, to: 24, by: 2).map { .int(Int64($0)) })
        let scanned = try await collection.query(params: ["odd": true], options: nil)
        #expect(scanned.map { $0["my.id"] } == stride(from: 0, to: 40, by: 2).map { .int(Int64($0)) })
    }

    @Test("a whole-table scan is not sorted by the server, yet its results come in id order")
    func fullScanInIDOrder() async throws {
        let store = try await PostgresTestServer.store()
        defer { store.close() }
        let collection = try await store.collection(PostgresTestServer.uniqueName("scan"), mapping: Self.mapping)
        // Inserted one change set at a time in descending id order, so the heap holds them backwards.
        for id in (0..<20).reversed() {
            _ = try await collection.add(object: ["id": .int(Int64(id)), "even": .bool(id % 2 == 0)])
        }
        let plan = collection.layout.plan(try Query(params: ["even": true], options: nil))
        let statement = try #require(try PostgresQueryRunner(layout: collection.layout, plan: plan).firstStatement)
        #expect(!statement.sql.text.contains("ORDER BY"))
        let found = try await collection.query(params: ["even": true], options: nil)
        #expect(found.map { $0["id"] } == stride(from: 0, to: 20, by: 2).map { .int(Int64($0)) })
        let skipped = try await collection.query(params: ["even": true], options: ["offset": 3])
        #expect(skipped.map { $0["id"] } == stride(from: 6, to: 20, by: 2).map { .int(Int64($0)) })
        #expect(try await collection.all().map { $0["id"] } == (0..<20).map { .int(Int64($0)) })
    }
}
