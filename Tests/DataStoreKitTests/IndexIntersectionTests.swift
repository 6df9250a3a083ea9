import DataStoreCore
import Foundation
import TestSupport
import Testing
@testable import DataStoreKit

/// `==` conditions on two fields with single-field indexes of their own: the scan of one index is
/// narrowed by the other's window, so that a record is read only for an id both hold.
@Suite("Index intersection: two single-field indexes narrow each other")
struct IndexIntersectionTests {
    static func collection(in store: DataStore) async throws -> StoreCollection<Document> {
        try await store.collection(
            "pairs", mapping: ObjectMapping<Document>(idField: "id", encode: { $0 }, decode: { $0 }),
            indexes: [IndexDefinition("from"), IndexDefinition("to_desc", fields: [.descending("to")])])
    }

    /// 400 documents: `from` among 8 values, `to` among 8 (a string, a number, null or missing),
    /// and `kind` constant for one `from` value, so that one narrowing window holds every id.
    static func documents() -> [Document] {
        var rng = SeededGenerator(seed: 21)
        return (0..<400).map { number in
            var document = Document()
            document["id"] = .string(String(format: "p%04d", (number * 7919) % 400))
            let from = Int.random(in: 0..<8, using: &rng)
            document["from"] = .int(Int64(from))
            switch Int.random(in: 0..<10, using: &rng) {
            case 0: break
            case 1: document["to"] = .double(Double(Int.random(in: 0..<8, using: &rng)))
            case 2: document["to"] = .null
            default: document["to"] = .string("u\(Int.random(in: 0..<8, using: &rng))")
            }
            document["kind"] = from == 3 ? "same" : .string("k\(number % 5)")
            return document
        }
    }

    /// The ids `params` matches by brute force, in id order (the order both windows give).
    static func expected(_ params: [String: Value], _ documents: [Document]) throws -> [Value] {
        try Query(params: params, options: nil).evaluate(documents, idField: "id").map { $0["id"]! }
            .sorted()
    }

    @Test("the plan names the narrowing index, and every pair of values answers as brute force does")
    func answers() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let collection = try await Self.collection(in: temporary.store)
        let documents = Self.documents()
        _ = try await collection.add(contentsOf: documents)
        let plan = try collection.explain(params: ["from": 1, "to": "u2"])
        #expect(plan.intersection?.index.name == "to_desc")
        #expect(plan.description.contains("narrowed by index to_desc (to == \"u2\")"))
        #expect(try collection.explain(params: ["from": 1]).intersection == nil)
        #expect(try collection.explain(params: ["from": 1, "to >=": "u2"]).intersection == nil)
        let tos: [Value] = (0..<9).map { .string("u\($0)") } + [.double(3), .int(3), .null]
        for from in 0..<9 {
            for to in tos {
                let params: [String: Value] = ["from": .int(Int64(from)), "to": to]
                let expected = try Self.expected(params, documents)
                // The compiled point form, then the general executor (a limit takes it off the point path).
                for _ in 0..<2 {
                    #expect(
                        try await collection.query(params: params, options: nil).map { $0["id"]! } == expected,
                        "\(params)")
                }
                let limited = try await collection.query(params: params, options: ["limit": 1_000])
                #expect(limited.map { $0["id"]! } == expected, "\(params)")
            }
        }
    }

    @Test("a record is read only for an id both windows hold, by the compiled point form and the executor")
    func recordsRead() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let collection = try await Self.collection(in: temporary.store)
        let documents = Self.documents()
        _ = try await collection.add(contentsOf: documents)
        let params: [String: Value] = ["from": 2, "to": "u5"]
        let expected = try Self.expected(params, documents)
        let candidates = documents.filter { $0["from"] == 2 }.count
        #expect(!expected.isEmpty && expected.count * 4 < candidates)
        // The first dictionary call plans and compiles, the second runs the compiled form; a limit
        // takes the call to the general executor.
        for options: [String: Value]? in [nil, nil, ["limit": 1_000]] {
            let before = collection.storage.recordLookups
            #expect(try await collection.query(params: params, options: options).map { $0["id"]! } == expected)
            #expect(collection.storage.recordLookups - before == expected.count)
        }
        #expect(try await collection.count(params: params) == expected.count)
        // A narrowing window that ends early, and one that holds every candidate.
        let kindIndexed = try await temporary.store.collection(
            "pairs", mapping: ObjectMapping<Document>(idField: "id", encode: { $0 }, decode: { $0 }),
            indexes: [
                IndexDefinition("from"), IndexDefinition("to_desc", fields: [.descending("to")]),
                IndexDefinition("kind")
            ])
        let fromThree = documents.filter { $0["from"] == 3 }.map { $0["id"]! }.sorted()
        var firstFew = documents
        for (position, document) in documents.enumerated() where fromThree.prefix(3).contains(document["id"]!) {
            firstFew[position]["kind"] = "first"
            _ = try await kindIndexed.put(id: document["id"]!, object: firstFew[position])
        }
        for (kind, count) in [("first", 3), ("same", fromThree.count - 3)] {
            let narrowed: [String: Value] = ["from": 3, "kind": .string(kind)]
            #expect(try kindIndexed.explain(params: narrowed).intersection?.index.name == "kind")
            let all = try Self.expected(narrowed, firstFew)
            #expect(all.count == count)
            for options: [String: Value]? in [nil, nil, ["limit": 1_000]] {
                let before = kindIndexed.storage.recordLookups
                #expect(try await kindIndexed.query(params: narrowed, options: options).map { $0["id"]! } == all)
                #expect(kindIndexed.storage.recordLookups - before == count)
            }
        }
    }

    @Test("a compound index fixed whole and a descending one are narrowed; a covering one is not")
    func otherIndexes() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let collection = try await temporary.store.collection(
            "shapes", mapping: ObjectMapping<Document>(idField: "id", encode: { $0 }, decode: { $0 }),
            indexes: [
                IndexDefinition("fk", fields: ["from", "kind"]),
                IndexDefinition("to_desc", fields: [.descending("to")]),
                IndexDefinition("kind")
            ])
        let documents = Self.documents()
        _ = try await collection.add(contentsOf: documents)
        let cases: [(params: [String: Value], primary: String, narrowing: String)] = [
            (["from": 3, "kind": "same", "to": "u1"], "fk", "to_desc"), (["to": "u4", "kind": "k2"], "to_desc", "kind")
        ]
        for (params, primary, narrowing) in cases {
            let plan = try collection.explain(params: params)
            guard case .indexScan(let scan) = plan.access else {
                Issue.record("\(params): \(plan)")
                continue
            }
            #expect(scan.index.name == primary)
            #expect(plan.intersection?.index.name == narrowing)
            let expected = try Self.expected(params, documents)
            for options: [String: Value]? in [nil, nil, ["limit": 1_000]] {
                #expect(try await collection.query(params: params, options: options).map { $0["id"]! } == expected)
            }
        }
        let covering = try await temporary.store.collection(
            "covered", mapping: ObjectMapping<Document>(idField: "id", encode: { $0 }, decode: { $0 }),
            indexes: [IndexDefinition("from", covering: .document), IndexDefinition("to")])
        _ = try await covering.add(contentsOf: documents)
        let params: [String: Value] = ["from": 1, "to": "u2"]
        #expect(try covering.explain(params: params).intersection == nil)
        #expect(
            try await covering.query(params: params, options: nil).map { $0["id"]! } == Self.expected(params, documents)
        )
    }

    @Test("streams and pages, which scan the first index alone, agree with a narrowed query")
    func streamsAndPages() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let collection = try await Self.collection(in: temporary.store)
        let documents = Self.documents()
        _ = try await collection.add(contentsOf: documents)
        let params: [String: Value] = ["from": 5, "to": "u1"]
        let expected = try Self.expected(params, documents)
        #expect(try await collection.query(params: params, options: nil).map { $0["id"]! } == expected)
        var streamed: [Value] = []
        for try await document in try collection.stream(params: params, pageSize: 2) {
            streamed.append(document["id"]!)
        }
        #expect(streamed == expected)
        var paged: [Value] = []
        var token: PageToken?
        repeat {
            let page = try await collection.page(params: params, size: 2, after: token)
            paged += page.objects.map { $0["id"]! }
            token = page.next
        } while token != nil
        #expect(paged == expected)
    }

    @Test("a value cut to fit its key leaves the narrowing aside: every candidate is read and checked")
    func cutValues() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let collection = try await Self.collection(in: temporary.store)
        let long = String(repeating: "t", count: 700)
        var documents: [Document] = []
        for number in 0..<40 {
            var document = Document()
            document["id"] = .string(String(format: "c%03d", number))
            document["from"] = .int(Int64(number % 2))
            document["to"] = .string(long + String(number % 4))
            documents.append(document)
        }
        _ = try await collection.add(contentsOf: documents)
        let params: [String: Value] = ["from": 1, "to": .string(long + "3")]
        let expected = try Self.expected(params, documents)
        #expect(expected.count == 10)
        // Planned by the fields alone (a compiled form serves every value), so still "narrowed".
        #expect(try collection.explain(params: params).intersection?.index.name == "to_desc")
        for options: [String: Value]? in [nil, nil, ["limit": 1_000]] {
            let before = collection.storage.recordLookups
            #expect(try await collection.query(params: params, options: options).map { $0["id"]! } == expected)
            #expect(collection.storage.recordLookups - before == 20)
        }
    }
}
