import DataStoreCore
import Foundation
import ModelConformance
import Testing
@testable import DataStoreKit

/// Random documents and random queries answered by the store and by brute force must agree.
@Suite("Differential: store vs brute force")
struct DifferentialTests {
    static let fields = ["a", "b", "c", "tags", "id", "n.x", "n.y", "items.k"]

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

    /// A collection "docs" of plain documents with single-field, compound, mixed-direction and
    /// multi-value indexes, for tests that compare the store with a model of it.
    static func indexedDocuments(in store: DataStore) async throws -> StoreCollection<Document> {
        try await store.collection(
            "docs", mapping: ObjectMapping<Document>(idField: "id", encode: { $0 }, decode: { $0 }),
            indexes: [
                IndexDefinition("a"), IndexDefinition("ab", fields: ["a", "b"]),
                IndexDefinition("cb", fields: ["c", .descending("b")]),
                // Single-field beside "a" and "b_desc": `==` on two of them narrows one by the other.
                IndexDefinition("c_only", fields: ["c"]), IndexDefinition("tags", multiValue: true)
            ])
    }

    static func randomDocument(_ id: Int, _ rng: inout SeededGenerator) -> Document {
        var document = Document()
        document["id"] = .string(String(format: "d%03d", id))
        for field in ["a", "b", "c"] {
            if let value = randomValue(&rng) { document[field] = value }
        }
        // Nested: an object (sometimes a scalar) under n, an array of objects under items.
        switch Int.random(in: 0..<4, using: &rng) {
        case 0: break
        case 1: document["n"] = randomValue(&rng) ?? .null
        default:
            var nested = Document()
            for field in ["x", "y"] { if let value = randomValue(&rng) { nested[field] = value } }
            document["n"] = .object(nested)
        }
        if Bool.random(using: &rng) {
            document["items"] = .array(
                (0..<Int.random(in: 0...3, using: &rng)).map { _ in
                    var item = Document()
                    if let value = randomValue(&rng) { item["k"] = value }
                    return Int.random(in: 0..<5, using: &rng) == 0 ? .int(7) : .object(item)
                })
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
            // Range operators refuse null (a named error the parser tests cover): pick again.
            if [" <", " <=", " >", " >="].contains(op) && value == .null { value = .int(1) }
            params[field + op] = value
        }
        var options: [String: Value] = [:]
        if Bool.random(using: &rng) {
            let keys = (0..<Int.random(in: 1...2, using: &rng)).map { _ in
                Value.string(
                    (Bool.random(using: &rng) ? "-" : "") + ["a", "b", "c", "id", "n.x", "n.y"].randomElement(
                        using: &rng)!)
            }
            if Set(keys.map { $0.stringValue!.trimmingCharacters(in: ["-"]) }).count == keys.count {
                options["sort"] = .array(keys)
            }
        }
        if Int.random(in: 0..<3, using: &rng) == 0 { options["limit"] = .int(Int64.random(in: 0...5, using: &rng)) }
        if Int.random(in: 0..<4, using: &rng) == 0 { options["offset"] = .int(Int64.random(in: 0...3, using: &rng)) }
        return try Query(params: params, options: options)
    }

    /// The collection `docs` of documents as stored, with an index of every kind the planner
    /// chooses among: single-field, descending, compound, multi-value and on nested paths.
    static func collection(in store: DataStore) async throws -> StoreCollection<Document> {
        try await store.collection(
            "docs", mapping: ObjectMapping<Document>(idField: "id", encode: { $0 }, decode: { $0 }),
            indexes: [
                IndexDefinition("a"),
                IndexDefinition("b_desc", fields: [.descending("b")]),
                IndexDefinition("ab", fields: ["a", "b"]),
                IndexDefinition("cb", fields: ["c", .descending("b")]),
                // Single-field beside "a" and "b_desc": `==` on two of them narrows one by the other.
                IndexDefinition("c_only", fields: ["c"]),
                IndexDefinition("tags", multiValue: true),
                IndexDefinition("nx", fields: ["n.x"]),
                IndexDefinition("nxy", fields: ["n.x", .descending("n.y")]),
                IndexDefinition("itemKeys", fields: ["items.k"], multiValue: true)
            ])
    }

    @Test(
        "store answers and counts equal brute-force answers, before and after updates and removals",
        arguments: Array(UInt64(1)...5))
    func agree(seed: UInt64) async throws {
        var rng = SeededGenerator(seed: seed)
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let collection = try await Self.collection(in: temporary.store)
        var truth: [String: Document] = [:]
        for id in 0..<120 {
            let document = Self.randomDocument(id, &rng)
            _ = try await collection.add(object: document)
            truth[document["id"]!.stringValue!] = document
        }
        for round in 0..<3 {
            try expectConsistent(temporary.store)
            for _ in 0..<150 {
                let query = try Self.randomQuery(&rng)
                let expected = query.evaluate(Array(truth.values), idField: "id").map { $0["id"]! }
                let actual = try collection.query(query).map { $0["id"]! }
                let plan = collection.plan(for: query)
                let matchCount = Query(conditions: query.conditions).evaluate(Array(truth.values), idField: "id").count
                let counted = try collection.countOutcome(query)
                #expect(counted.count == matchCount, "count: \(query) | \(plan) | from index \(counted.fromIndex)")
                // A walk in batches (as cursors, streams and pages make) gives query's answer in
                // query's order, or refuses a sort the plan makes in memory.
                if let walked = try Self.walk(collection, query, batch: Int.random(in: 1...4, using: &rng)) {
                    #expect(walked == actual, "walk: \(query) | \(plan) | got \(walked) want \(actual)")
                } else {
                    #expect(!query.sort.isEmpty && !plan.sortFromScan, "walk refused: \(query) | \(plan)")
                }
                if query.sort.isEmpty {
                    // Without a sort the order is the plan's: compare as sets, and the count.
                    let matching = Set(
                        Query(conditions: query.conditions).evaluate(Array(truth.values), idField: "id").map {
                            $0["id"]!
                        })
                    #expect(
                        actual.count == expected.count,
                        "\(query) | \(plan) | round \(round) | got \(actual) want \(expected)")
                    #expect(actual.allSatisfy { matching.contains($0) }, "\(query) | \(plan) | got \(actual)")
                    #expect(Set(actual).count == actual.count, "duplicates: \(query) | \(plan)")
                } else {
                    if let first = zip(actual, expected).enumerated().first(where: { $0.element.0 != $0.element.1 })?
                        .offset
                    {
                        let show = { (id: Value) in
                            truth[id.stringValue!].map { d in
                                query.sort.map {
                                    "\(d.value(atPath: $0.field).map(String.init(describing:)) ?? "missing")".prefix(12)
                                }
                            } ?? []
                        }
                        Issue.record(
                            "first difference at \(first): got \(actual[first]) \(show(actual[first])) want \(expected[first]) \(show(expected[first])); before: \(first > 0 ? show(actual[first - 1]) : [])"
                        )
                    }
                    #expect(actual == expected, "\(query) | \(plan) | round \(round) | got \(actual) want \(expected)")
                }
            }
            // Mutate: replace a third, remove a sixth.
            for id in truth.keys.sorted() where Int.random(in: 0..<3, using: &rng) == 0 {
                var document = Self.randomDocument(0, &rng)
                document["id"] = .string(id)
                _ = try await collection.put(id: .string(id), object: document)
                truth[id] = document
            }
            for id in truth.keys.sorted() where Int.random(in: 0..<6, using: &rng) == 0 {
                _ = try await collection.remove(id: .string(id))
                truth[id] = nil
            }
        }
        try expectConsistent(temporary.store)
    }

    /// The ids `query` answers, read by a ``ResumableScan`` `batch` at a time, each batch in its
    /// own read; `nil` when the walk refuses the query's sort.
    static func walk(_ collection: StoreCollection<Document>, _ query: Query, batch: Int) throws -> [Value]? {
        guard let scan = try? collection.resumableScan(query) else { return nil }
        var position: ScanPosition?
        var ids: [Value] = []
        repeat {
            let next = try collection.withReadTransaction { transaction in
                try scan.batch(after: position, count: batch, in: transaction) { body, _ in
                    try RecordCodec.field("id", in: body) ?? .null
                }
            }
            ids += next.items
            position = next.after
        } while position != nil
        let kept = ids.dropFirst(max(0, query.offset))
        return Array(query.limit.map { kept.prefix(max(0, $0)) } ?? kept)
    }
}
