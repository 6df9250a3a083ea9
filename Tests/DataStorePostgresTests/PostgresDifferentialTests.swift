import DataStoreCore
import DataStoreEngine
import DataStoreKit
import Foundation
import ModelConformance
import Testing

@testable import DataStorePostgres

/// Random documents and random queries (``DifferentialCorpus``): the PostgreSQL store must answer
/// as brute force does, and exactly as the LMDB store does (same planner, same key bytes, so the
/// same order even without a sort) — with its indexes declared before the documents were written
/// (each write makes the entries) and added after (a build makes them).
@Suite(
    "Differential: PostgreSQL store vs brute force and the LMDB store",
    .enabled(if: PostgresTestServer.isConfigured, PostgresTestServer.skipReason))
struct PostgresDifferentialTests {
    static let indexes = [
        IndexDefinition("a"),
        IndexDefinition("b_desc", fields: [.descending("b")]),
        IndexDefinition("ab", fields: ["a", "b"]),
        IndexDefinition("cb", fields: ["c", .descending("b")]),
        IndexDefinition("tags", multiValue: true),
        IndexDefinition("sku", fields: ["items.sku"], multiValue: true),
        IndexDefinition("city", fields: ["profile.city"]),
        IndexDefinition("city_a", fields: [.descending("profile.city"), "a"])
    ]

    static let mapping = ObjectMapping<Document>(idField: "id", encode: { $0 }, decode: { $0 })

    /// The four stores compared: each backend with its indexes declared first, and built after.
    struct Stores {
        let postgres: PostgresCollection<Document>
        let postgresBuilt: PostgresCollection<Document>
        let lmdb: StoreCollection<Document>
        let lmdbBuilt: StoreCollection<Document>

        func write(_ body: (any ModelProtocol<Document>) async throws -> Void) async throws {
            for model: any ModelProtocol<Document> in [postgres, postgresBuilt, lmdb, lmdbBuilt] {
                try await body(model)
            }
        }
    }

    @Test(
        "answers and counts equal brute force and the LMDB store, indexes declared first or built after",
        arguments: Array(UInt64(1)...4))
    func agree(seed: UInt64) async throws {
        var rng = SeededGenerator(seed: seed)
        let server = try await PostgresTestServer.store()
        defer { server.close() }
        let reference = try DataStore.inMemory()
        let postgresName = PostgresTestServer.uniqueName("docs"), builtName = PostgresTestServer.uniqueName("built")
        let postgres = try await server.collection(postgresName, mapping: Self.mapping, indexes: Self.indexes)
        let postgresBuilt = try await server.collection(builtName, mapping: Self.mapping)
        let lmdb = try await reference.collection("docs", mapping: Self.mapping, indexes: Self.indexes)
        let lmdbBuilt = try await reference.collection("built", mapping: Self.mapping)
        var truth: [String: Document] = [:]
        var first = Stores(postgres: postgres, postgresBuilt: postgresBuilt, lmdb: lmdb, lmdbBuilt: lmdbBuilt)
        for number in 0..<120 {
            let document = DifferentialCorpus.document(number, &rng)
            try await first.write { _ = try await $0.add(object: document) }
            truth[document["id"]!.stringValue!] = document
        }
        for index in Self.indexes {
            try await server.addIndex(index, to: builtName, buildChunk: 7)
            try await reference.addIndex(index, to: "built", buildChunk: 7)
        }
        first = Stores(
            postgres: postgres, postgresBuilt: try await server.collection(builtName, mapping: Self.mapping),
            lmdb: lmdb, lmdbBuilt: try await reference.collection("built", mapping: Self.mapping))
        for round in 0..<3 {
            for _ in 0..<100 {
                try await Self.compare(try DifferentialCorpus.query(&rng), first, truth, round: round)
            }
            for id in truth.keys.sorted() where Int.random(in: 0..<3, using: &rng) == 0 {
                var document = DifferentialCorpus.document(0, &rng)
                document["id"] = .string(id)
                try await first.write { _ = try await $0.put(id: .string(id), object: document) }
                truth[id] = document
            }
            for id in truth.keys.sorted() where Int.random(in: 0..<6, using: &rng) == 0 {
                try await first.write { _ = try await $0.remove(id: .string(id)) }
                truth[id] = nil
            }
        }
        #expect(try server.check(collections: [postgresName, builtName]).isEmpty)
        #expect(try reference.check().isEmpty)
    }

    /// Answers `query` on every store and compares with brute force over `truth`.
    static func compare(_ query: Query, _ stores: Stores, _ truth: [String: Document], round: Int) async throws {
        let documents = Array(truth.values)
        let matching = Query(conditions: query.conditions).evaluate(documents, idField: "id")
        let expected = query.evaluate(documents, idField: "id").map { $0["id"]! }
        let lmdbAnswer = try stores.lmdb.query(query).map { $0["id"]! }
        let plan = stores.postgres.layout.plan(query)
        let answers: [(String, [Value], Int)] = [
            (
                "postgres", try await stores.postgres.query(query).map { $0["id"]! },
                try await stores.postgres.count(query)
            ),
            (
                "postgres, built", try await stores.postgresBuilt.query(query).map { $0["id"]! },
                try await stores.postgresBuilt.count(query)
            ),
            ("lmdb", lmdbAnswer, try stores.lmdb.count(query)),
            ("lmdb, built", try stores.lmdbBuilt.query(query).map { $0["id"]! }, try stores.lmdbBuilt.count(query))
        ]
        // A walk in batches (as cursors, streams and pages make) gives query's answer in query's
        // order, or refuses a sort the plan makes in memory.
        for (name, collection) in [("postgres", stores.postgres), ("postgres, built", stores.postgresBuilt)] {
            let context = "walk, \(name): \(query) | \(plan) | round \(round)"
            let batch = 1 + (round + query.conditions.count) % 4
            if let walked = try await walk(collection, query, batch: batch) {
                #expect(walked == (try await collection.query(query).map { $0["id"]! }), "\(context)")
            } else {
                #expect(!query.sort.isEmpty && !plan.sortFromScan, "refused, \(context)")
            }
        }
        for (name, answer, count) in answers {
            let context = "\(name): \(query) | \(plan) | round \(round)"
            #expect(count == matching.count, "count, \(context)")
            if query.sort.isEmpty {
                // Without a sort the order is the plan's, the same on both backends.
                #expect(answer == lmdbAnswer, "vs LMDB, \(context)")
                #expect(answer.count == expected.count, "\(context) | got \(answer)")
                #expect(Set(answer).isSubset(of: Set(matching.map { $0["id"]! })), "\(context)")
                #expect(Set(answer).count == answer.count, "duplicates, \(context)")
            } else {
                #expect(answer == expected, "\(context) | got \(answer) want \(expected)")
            }
        }
    }

    /// The ids `query` finds when walked `batch` results at a time, each batch in a snapshot of
    /// its own, or `nil` when its sort is one the walk refuses.
    static func walk(_ collection: PostgresCollection<Document>, _ query: Query, batch: Int) async throws -> [Value]? {
        guard let walker = try? collection.walker(for: query) else { return nil }
        var position: ScanPosition?
        var ids: [Value] = []
        repeat {
            let next = try await collection.batch(walker, after: position, count: batch)
            ids += next.items.map { $0["id"]! }
            position = next.after
        } while position != nil
        let kept = ids.dropFirst(max(0, query.offset))
        return Array(query.limit.map { kept.prefix(max(0, $0)) } ?? kept)
    }

    @Test("the reported mixed-type multi-value case: a prefix and a null through an index on a nested path")
    func mixedTypesOnANestedPath() async throws {
        let server = try await PostgresTestServer.store()
        defer { server.close() }
        let name = PostgresTestServer.uniqueName("mixed")
        let collection = try await server.collection(name, mapping: Self.mapping)
        let documents: [Document] = try [
            #"{"id":"a","items":[{"sku":2.0},{"sku":""}]}"#, #"{"id":"b","items":[{"sku":"k1"},{"sku":"k2"}]}"#,
            #"{"id":"c","items":[{"sku":1},{"sku":["k2"]},{"sku":"k1"}]}"#,
            #"{"id":"d","items":[{"sku":null},{"sku":"k2a"}]}"#
        ].map { try JSONForm.value(Array($0.utf8)).objectValue! }
        for document in documents { _ = try await collection.add(object: document) }
        try await server.addIndex(IndexDefinition("items.sku", multiValue: true), to: name)
        let indexed = try await server.collection(name, mapping: Self.mapping)
        #expect(
            try await indexed.query(params: ["items.sku ^=": ""], options: nil).map { $0["id"]! } == [
                "a", "b", "c", "d"
            ])
        #expect(try await indexed.count(params: ["items.sku ==": .null]) == 1)
        #expect(try server.check(collections: [name]).isEmpty)
    }

    @Test("a unique index on a nested path refuses a shared value and takes distinct ones, written and built")
    func uniqueOnANestedPath() async throws {
        let server = try await PostgresTestServer.store()
        defer { server.close() }
        let name = PostgresTestServer.uniqueName("emails")
        let unique = IndexDefinition("email", fields: ["profile.email"], unique: true)
        let declared = try await server.collection(name, mapping: Self.mapping, indexes: [unique])
        for (id, email) in [("u1", "ann@example.com"), ("u2", "bob@example.com")] {
            _ = try await declared.add(object: ["id": .string(id), "profile": ["email": .string(email)]])
        }
        await #expect(throws: DataStoreError.self) {
            _ = try await declared.add(object: ["id": "u3", "profile": ["email": "ann@example.com"]])
        }
        #expect(try await declared.count(params: [:]) == 2)
        let built = PostgresTestServer.uniqueName("emails-built")
        let plain = try await server.collection(built, mapping: Self.mapping)
        for (id, email) in [("u1", "ann@example.com"), ("u2", "bob@example.com")] {
            _ = try await plain.add(object: ["id": .string(id), "profile": ["email": .string(email)]])
        }
        try await server.addIndex(unique, to: built)
        #expect(try server.check(collections: [name, built]).isEmpty)
    }

    @Test("a unique multi-value index refuses elements its keys cut alike, which one side-table row cannot tell apart")
    func uniqueElementsCutAlike() async throws {
        let server = try await PostgresTestServer.store()
        defer { server.close() }
        let name = PostgresTestServer.uniqueName("cut")
        let collection = try await server.collection(
            name, mapping: Self.mapping, indexes: [IndexDefinition("tags", unique: true, multiValue: true)])
        let long = String(repeating: "q", count: 600)
        await #expect(throws: DataStoreError.self) {
            _ = try await collection.add(object: [
                "id": "x", "tags": Value.array([.string(long + "1"), .string(long + "2")])
            ])
        }
        #expect(try await collection.count(params: [:]) == 0)
        _ = try await collection.add(object: ["id": "y", "tags": Value.array([.string(long + "1"), "short"])])
        let plain = try await server.collection(
            PostgresTestServer.uniqueName("cut"), mapping: Self.mapping,
            indexes: [IndexDefinition("tags", multiValue: true)])
        _ = try await plain.add(object: ["id": "x", "tags": Value.array([.string(long + "1"), .string(long + "2")])])
        #expect(try await plain.query(params: ["tags": .string(long + "2")], options: nil).count == 1)
        #expect(try server.check(collections: [name]).isEmpty)
    }
}
