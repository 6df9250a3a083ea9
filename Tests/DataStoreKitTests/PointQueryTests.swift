import DataStoreCore
import Foundation
import ModelConformance
import Testing
@testable import DataStoreKit
@testable import DataStoreEngine

/// Dictionary queries of a point shape (`==` on distinct fields, scalar values, no options) run a
/// form compiled once per shape: it must choose the planner's index, answer as the general path
/// and a full scan do, and be dropped when the indexes change.
@Suite("Point queries: compiled dictionary shapes")
struct PointQueryTests {
    /// Key sets to query, with the index each compiles to (`nil`: no point form).
    static let shapes: [(keys: [String], index: String?)] = [
        (["a"], "a"), (["a", "b"], "ab"), (["a ==", "b ="], "ab"), (["c", "b"], "cb"), (["c"], "cb"),
        (["b"], "b_desc"), (["n.x"], "nx"), (["n.x", "n.y"], "nxy"), (["a", "b", "c"], "ab"), (["a", "c"], "a"),
        (["tags"], nil), (["id"], nil), (["a", "id"], nil), (["items.k"], nil), (["n.y"], nil), (["a", "a =="], nil)
    ]

    static func collection(in store: DataStore) async throws -> StoreCollection<Document> {
        try await DifferentialTests.collection(in: store)
    }

    /// The point query the collection compiled for `params`' shape, if any.
    static func compiled(_ collection: StoreCollection<Document>, _ params: [String: Value]) -> PointQuery? {
        guard let digest = DictionaryDigest.of(params) else { return nil }
        var values = PointValues()
        return collection.storage.dictionaryShape(of: params, digest: digest, values: &values) ?? nil
    }

    /// A value for `key`: often one a stored document holds under its field, so that queries find
    /// something; otherwise a random scalar (``DifferentialTests/randomValue(_:)``).
    static func value(
        for key: String, _ documents: [Document], _ rng: inout SeededGenerator
    ) -> Value {
        let field = String(key.split(separator: " ").first!)
        if Bool.random(using: &rng), let document = documents.randomElement(using: &rng),
            let stored = document.value(atPath: field)
        {
            switch stored {
            case .array, .object: break
            default: return stored
            }
        }
        if field == "id" { return .string(String(format: "d%03d", Int.random(in: 0..<130, using: &rng))) }
        return DifferentialTests.randomValue(&rng) ?? .null
    }

    /// The ids `params` matches by brute force over `documents`, as a set.
    static func expected(_ params: [String: Value], _ documents: [Document]) throws -> Set<Value> {
        Set(try Query(params: params, options: nil).evaluate(documents, idField: "id").map { $0["id"]! })
    }

    @Test("each shape compiles to the index the planner chooses, or to nothing when it has no point form")
    func planChosen() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let collection = try await Self.collection(in: temporary.store)
        var rng = SeededGenerator(seed: 7)
        for id in 0..<40 { _ = try await collection.add(object: DifferentialTests.randomDocument(id, &rng)) }
        for (keys, index) in Self.shapes {
            var params: [String: Value] = [:]
            for key in keys { params[key] = .string("v") }
            #expect(Self.compiled(collection, params) == nil, "\(keys) compiled before its first query")
            _ = try await collection.query(params: params, options: nil)
            let point = Self.compiled(collection, params)
            #expect(point?.index.name == index, "\(keys): \(String(describing: point?.index.name))")
            if let point, case .indexScan(let scan) = try collection.explain(params: params).access {
                #expect(point.index.definition == scan.index, "\(keys)")
            }
        }
        let counts = collection.storage.dictionaryShapeCounts
        #expect(counts.all == Self.shapes.count)
        #expect(counts.points == Self.shapes.filter { $0.index != nil }.count)
        // Arrays and objects, options, no keys or too many: no shape is looked up or learnt.
        _ = try await collection.query(params: ["a": .array([.int(1)])], options: nil)
        _ = try await collection.query(params: ["a": .int(1)], options: ["limit": .int(3)])
        _ = try await collection.query(params: [:], options: nil)
        _ = try await collection.query(params: ["a": 1, "b": 2, "c": 3, "n.x": 4, "n.y": 5], options: nil)
        #expect(collection.storage.dictionaryShapeCounts.all == Self.shapes.count)
    }

    @Test(
        "compiled shapes answer as the general path, in its order, and as a full scan, across writes",
        arguments: [UInt64(21), 22, 23])
    func differential(seed: UInt64) async throws {
        var rng = SeededGenerator(seed: seed)
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let collection = try await Self.collection(in: temporary.store)
        var truth: [String: Document] = [:]
        for id in 0..<120 {
            let document = DifferentialTests.randomDocument(id, &rng)
            _ = try await collection.add(object: document)
            truth[document["id"]!.stringValue!] = document
        }
        for round in 0..<3 {
            let documents = Array(truth.values)
            for _ in 0..<150 {
                let keys = Self.shapes.randomElement(using: &rng)!.keys
                var params: [String: Value] = [:]
                for key in keys { params[key] = Self.value(for: key, documents, &rng) }
                let general = try collection.query(Query(params: params, options: nil)).map { $0["id"]! }
                let dictionary = try await collection.query(params: params, options: nil).map { $0["id"]! }
                #expect(dictionary == general, "round \(round): \(params)")
                #expect(Set(dictionary) == (try Self.expected(params, documents)), "round \(round): \(params)")
                #expect(Set(dictionary).count == dictionary.count, "duplicates: \(params)")
            }
            // Writes change the data, not the indexes: the compiled shapes stay and see the changes.
            let compiledBefore = collection.storage.dictionaryShapeCounts.points
            #expect(compiledBefore > 0)
            for id in truth.keys.sorted() where Int.random(in: 0..<3, using: &rng) == 0 {
                var document = DifferentialTests.randomDocument(0, &rng)
                document["id"] = .string(id)
                _ = try await collection.put(id: .string(id), object: document)
                truth[id] = document
            }
            for id in truth.keys.sorted() where Int.random(in: 0..<6, using: &rng) == 0 {
                _ = try await collection.remove(id: .string(id))
                truth[id] = nil
            }
            #expect(collection.storage.dictionaryShapeCounts.points == compiledBefore)
        }
    }

    @Test("dropping and adding indexes drops the compiled shapes; the next query compiles over the new list")
    func invalidation() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let store = temporary.store
        let collection = try await Self.collection(in: store)
        var rng = SeededGenerator(seed: 5)
        var documents: [Document] = []
        for id in 0..<60 {
            let document = DifferentialTests.randomDocument(id, &rng)
            documents.append(document)
            _ = try await collection.add(object: document)
        }
        let probes: [[String: Value]] = documents.prefix(20).map { document in
            ["a": document["a"] ?? .null, "b": document["b"] ?? .null]
        }
        func check(_ index: String?, _ context: String) throws {
            for params in probes {
                let found = try collection.query(params: params, options: nil).map { $0["id"]! }
                #expect(Set(found) == (try Self.expected(params, documents)), "\(context): \(params)")
                #expect(Self.compiled(collection, params)?.index.name == index, "\(context)")
            }
        }
        try check("ab", "declared")
        _ = try await store.dropIndex(named: "ab", from: "docs")
        #expect(collection.storage.dictionaryShapeCounts.all == 0)
        try check("a", "after dropping ab")
        // A new index may reuse the dropped one's database handle: no stale form may reach it.
        try await store.addIndex(IndexDefinition("ba", fields: ["b", "a"]), to: "docs")
        #expect(collection.storage.dictionaryShapeCounts.all == 0)
        try check("ba", "after adding ba")
        _ = try await store.dropIndex(named: "a", from: "docs")
        _ = try await store.dropIndex(named: "ba", from: "docs")
        try check("b_desc", "after dropping a and ba")
        _ = try await store.dropIndex(named: "b_desc", from: "docs")
        try check(nil, "with no index on a or b")
    }

    @Test("a prepared point query compiles once per index list and answers as the dictionary")
    func prepared() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let store = temporary.store
        let collection = try await Self.collection(in: store)
        var rng = SeededGenerator(seed: 9)
        var documents: [Document] = []
        for id in 0..<60 {
            let document = DifferentialTests.randomDocument(id, &rng)
            documents.append(document)
            _ = try await collection.add(object: document)
        }
        let query = try collection.prepareQuery(params: [
            "a": .parameter(.number), "c": .parameter(.string), "b": .value(.int(1))
        ])
        func run(_ context: String) throws {
            for _ in 0..<30 {
                let values: [String: Value] = [
                    "a": .int(Int64.random(in: 0...2, using: &rng)),
                    "c": .string(["", "a", "ab", "b"].randomElement(using: &rng)!)
                ]
                let written = values.merging(["b": .int(1)]) { $1 }
                let found = try query.run(values).map { $0["id"]! }
                #expect(found == (try collection.query(params: written, options: nil).map { $0["id"]! }), "\(context)")
                #expect(Set(found) == (try Self.expected(written, documents)), "\(context): \(written)")
            }
        }
        try run("declared")
        _ = try await store.dropIndex(named: "ab", from: "docs")
        try run("after dropping ab")
        try await store.addIndex(IndexDefinition("cab", fields: ["c", "a", "b"]), to: "docs")
        try run("after adding cab")
        #expect(try query.explain(["a": 1, "c": "a"]).description.contains("index scan of cab"))
        // Bad bindings still get the template's errors once the form is compiled.
        #expect(throws: DataStoreError.self) { try query.run(["a": 1]) }
        #expect(throws: DataStoreError.self) { try query.run(["a": 1, "c": 2]) }
        #expect(throws: DataStoreError.self) { try query.run(["a": 1, "c": "x", "d": 3]) }
        #expect(throws: DataStoreError.self) { try query.run(["a": 1, "d": 3]) }
    }

    @Test("hostile keys and values: cut keys, NUL bytes, numbers across kinds, bad keys on every call")
    func hostile() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let collection = try await Self.collection(in: temporary.store)
        let long = String(repeating: "é", count: 400)
        var documents: [Document] = []
        let values: [Value] = [
            .string(long + "1"), .string(long + "2"), .string(long), .string("a\u{0}b"), .string("a"),
            .string(""), .int(0), .double(-0.0), .double(1), .int(1), .double(.nan), .null, .bool(false),
            .bytes([0, 0xFF]), .bytes([])
        ]
        for (id, value) in values.enumerated() {
            for (other, second) in values.enumerated() where (id + other) % 3 == 0 {
                var document = Document()
                document["id"] = .string("h\(id)-\(other)")
                document["a"] = value
                document["b"] = second
                documents.append(document)
                _ = try await collection.add(object: document)
            }
        }
        for value in values {
            for second in values + [.string(long + "3"), .string("a\u{0}"), .int(2)] {
                for params in [["a": value, "b": second], ["a": value], ["b =": second], ["c": second]] {
                    for _ in 0..<2 {
                        let found = try await collection.query(params: params, options: nil).map { $0["id"]! }
                        #expect(Set(found) == (try Self.expected(params, documents)), "\(params)")
                        #expect(found == (try collection.query(Query(params: params, options: nil)).map { $0["id"]! }))
                    }
                }
            }
        }
        #expect(Self.compiled(collection, ["a": .string(long), "b": .int(1)])?.index.name == "ab")
        // A bad key is reported on every call, before and after good shapes with its other keys.
        for params: [String: Value] in [["a": 1, "b <": .null], ["a": 1, "b ?": 1], ["": 1], ["a": 1, " b": 2]] {
            for _ in 0..<2 {
                let error = #expect(throws: DataStoreError.self) { try collection.query(params: params, options: nil) }
                #expect(error?.code == .invalidQuery, "\(params)")
            }
        }
        // A key in another script is a field like any other (a full scan: no index holds it).
        var odd = Document()
        odd["id"] = "odd"
        odd["ключ"] = "значение"
        _ = try await collection.add(object: odd)
        for _ in 0..<2 {
            #expect(try await collection.query(params: ["ключ": "значение"], options: nil).map { $0["id"]! } == ["odd"])
        }
    }

    @Test("candidates are checked only when a value was cut or a condition's field is outside the window")
    func checkedCandidates() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let collection = try await Self.collection(in: temporary.store)
        let long = Value.string(String(repeating: "x", count: 600))
        let cases: [(params: [String: Value], checked: Bool)] = [
            (["a": 1, "b": "x"], false), (["a": .double(.nan)], false), (["b": .null], false),
            (["n.x": 1, "n.y": 2], false), (["a": long, "b": 1], true), (["b": long], true),
            (["a": 1, "c": 2], true), (["a": 1, "b": 2, "c": 3], true)
        ]
        for (params, checked) in cases {
            _ = try await collection.query(params: params, options: nil)
            let point = try #require(Self.compiled(collection, params), "\(params)")
            var values = PointValues()
            let digest = try #require(DictionaryDigest.of(params))
            _ = collection.storage.dictionaryShape(of: params, digest: digest, values: &values)
            #expect(point.window(values).checked == checked, "\(params)")
        }
    }

    @Test("a shape's keys bind in any order and only when they are exactly its keys")
    func binding() {
        let shape = DictionaryShape(keys: ["a", "b ="])
        var values = PointValues()
        #expect(shape.bind(["b =": 2, "a": 1], limited: false, to: &values))
        #expect(values[0] == 1 && values[1] == 2)
        #expect(!shape.bind(["a": 1], limited: false, to: &values))
        #expect(!shape.bind(["a": 1, "b": 2], limited: false, to: &values))
        #expect(!shape.bind(["a": 1, "b =": 2, "c": 3], limited: false, to: &values))
        #expect(DictionaryDigest.of(["a": 1, "b =": 2]) == DictionaryDigest.of(["b =": 3, "a": "x"]))
        #expect(DictionaryDigest.of(["a": .array([])]) == nil)
        #expect(DictionaryDigest.of([:]) == nil)
    }

    @Test("a point query that matches nothing reads no record; one that matches reads only its window")
    func recordLookups() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let collection = try await Self.collection(in: temporary.store)
        for id in 0..<30 {
            var document = Document()
            document["id"] = .string("r\(id)")
            document["a"] = .int(Int64(id % 3))
            document["b"] = .int(Int64(id % 5))
            _ = try await collection.add(object: document)
        }
        _ = try await collection.query(params: ["a": 9, "b": 9], options: nil)
        #expect(Self.compiled(collection, ["a": 9, "b": 9]) != nil)
        let before = collection.storage.recordLookups
        #expect(try await collection.query(params: ["a": 7, "b": 1], options: nil).isEmpty)
        #expect(collection.storage.recordLookups == before)
        #expect(try await collection.query(params: ["a": 1, "b": 1], options: nil).count == 2)
        #expect(collection.storage.recordLookups == before + 2)
    }
}
