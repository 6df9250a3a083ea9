import DataStoreCore
import DataStoreKit
import Foundation
import ModelConformance
import Testing

@testable import DataStorePostgres

/// Random documents and random queries: the PostgreSQL store must answer as brute force does,
/// and exactly as the LMDB store does (same planner, same key bytes, so the same order even
/// without a sort).
@Suite(
    "Differential: PostgreSQL store vs brute force and the LMDB store",
    .enabled(if: PostgresTestServer.isConfigured, PostgresTestServer.skipReason))
struct PostgresDifferentialTests {
    static let fields = ["a", "b", "c", "tags", "id"]
    static let indexes = [
        IndexDefinition("a"),
        IndexDefinition("b_desc", fields: [.descending("b")]),
        IndexDefinition("ab", fields: ["a", "b"]),
        IndexDefinition("cb", fields: ["c", .descending("b")]),
        IndexDefinition("tags", multiValue: true)
    ]

    static func randomValue(_ rng: inout SeededGenerator) -> Value? {
        switch Int.random(in: 0..<12, using: &rng) {
        case 0: return nil
        case 1: return .null
        case 2: return .bool(Bool.random(using: &rng))
        case 3, 4: return .int(Int64.random(in: -3...3, using: &rng))
        case 5: return .double(Double(Int.random(in: -6...6, using: &rng)) / 2)
        case 6, 7: return .string(["", "a", "ab", "b", "ba", "z"].randomElement(using: &rng)!)
        case 8: return .string(String(repeating: "q", count: 600) + ["1", "2", "3"].randomElement(using: &rng)!)
        case 9: return .bytes([UInt8.random(in: 0...2, using: &rng)])
        default: return .int(Int64.random(in: 0...2, using: &rng))
        }
    }

    static func randomDocument(_ id: Int, _ rng: inout SeededGenerator) -> Document {
        var document = Document()
        document["id"] = .string(String(format: "d%03d", id))
        for field in ["a", "b", "c"] {
            if let value = randomValue(&rng) { document[field] = value }
        }
        if Bool.random(using: &rng) {
            document["tags"] = .array(
                (0..<Int.random(in: 0...3, using: &rng)).map { _ in
                    .string(["x", "y", "z"].randomElement(using: &rng)!)
                })
        }
        return document
    }

    static func randomQuery(_ rng: inout SeededGenerator) throws -> Query {
        var params: [String: Value] = [:]
        for _ in 0..<Int.random(in: 0...3, using: &rng) {
            let field = fields.randomElement(using: &rng)!
            let op = ["", " ==", " !=", " <", " <=", " >", " >=", " in", " !in", " ^=", " exists"].randomElement(
                using: &rng)!
            var value =
                field == "tags"
                ? Value.string(["x", "y", "z"].randomElement(using: &rng)!) : (randomValue(&rng) ?? .null)
            if field == "id" { value = .string(String(format: "d%03d", Int.random(in: 0..<130, using: &rng))) }
            if op == " in" || op == " !in" { value = .array([value, randomValue(&rng) ?? .int(1)]) }
            if op == " ^=" { value = .string(["", "a", "b", "q", "qq", "d0", "x"].randomElement(using: &rng)!) }
            if op == " exists" { value = .bool(Bool.random(using: &rng)) }
            if [" <", " <=", " >", " >="].contains(op) && value == .null { value = .int(1) }
            params[field + op] = value
        }
        var options: [String: Value] = [:]
        if Bool.random(using: &rng) {
            let keys = (0..<Int.random(in: 1...2, using: &rng)).map { _ in
                Value.string((Bool.random(using: &rng) ? "-" : "") + ["a", "b", "c", "id"].randomElement(using: &rng)!)
            }
            if Set(keys.map { $0.stringValue!.trimmingCharacters(in: ["-"]) }).count == keys.count {
                options["sort"] = .array(keys)
            }
        }
        if Int.random(in: 0..<3, using: &rng) == 0 { options["limit"] = .int(Int64.random(in: 0...5, using: &rng)) }
        if Int.random(in: 0..<4, using: &rng) == 0 { options["offset"] = .int(Int64.random(in: 0...3, using: &rng)) }
        return try Query(params: params, options: options)
    }

    @Test(
        "answers and counts equal brute force and the LMDB store, before and after updates and removals",
        arguments: Array(UInt64(1)...3))
    func agree(seed: UInt64) async throws {
        var rng = SeededGenerator(seed: seed)
        let mapping = ObjectMapping<Document>(idField: "id", encode: { $0 }, decode: { $0 })
        let store = try await PostgresTestServer.store()
        defer { store.close() }
        let collection = try await store.collection(
            PostgresTestServer.uniqueName("docs"), mapping: mapping, indexes: Self.indexes)
        let reference = try DataStore.inMemory()
        let lmdb = try await reference.collection("docs", mapping: mapping, indexes: Self.indexes)
        var truth: [String: Document] = [:]
        for id in 0..<120 {
            let document = Self.randomDocument(id, &rng)
            _ = try await collection.add(object: document)
            _ = try await lmdb.add(object: document)
            truth[document["id"]!.stringValue!] = document
        }
        for round in 0..<3 {
            for _ in 0..<100 {
                let query = try Self.randomQuery(&rng)
                let actual = try await collection.query(query).map { $0["id"]! }
                let plan = collection.layout.plan(query)
                #expect(
                    actual == (try lmdb.query(query)).map { $0["id"]! }, "vs LMDB: \(query) | \(plan) | round \(round)")
                let matching = Query(conditions: query.conditions).evaluate(Array(truth.values), idField: "id")
                #expect(try await collection.count(query) == matching.count, "count: \(query) | \(plan)")
                if query.sort.isEmpty {
                    let expected = query.evaluate(Array(truth.values), idField: "id")
                    #expect(actual.count == expected.count, "\(query) | \(plan) | got \(actual)")
                    #expect(Set(actual).isSubset(of: Set(matching.map { $0["id"]! })), "\(query) | \(plan)")
                    #expect(Set(actual).count == actual.count, "duplicates: \(query) | \(plan)")
                } else {
                    let expected = query.evaluate(Array(truth.values), idField: "id").map { $0["id"]! }
                    #expect(actual == expected, "\(query) | \(plan) | round \(round)")
                }
            }
            for id in truth.keys.sorted() where Int.random(in: 0..<3, using: &rng) == 0 {
                var document = Self.randomDocument(0, &rng)
                document["id"] = .string(id)
                _ = try await collection.put(id: .string(id), object: document)
                _ = try await lmdb.put(id: .string(id), object: document)
                truth[id] = document
            }
            for id in truth.keys.sorted() where Int.random(in: 0..<6, using: &rng) == 0 {
                _ = try await collection.remove(id: .string(id))
                _ = try await lmdb.remove(id: .string(id))
                truth[id] = nil
            }
        }
    }
}
