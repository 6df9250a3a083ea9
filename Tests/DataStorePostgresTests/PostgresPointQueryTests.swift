import DataStoreCore
import DataStoreKit
import Testing

@testable import DataStorePostgres

/// Parameter dictionaries of point shape, compiled once per shape (`PostgresPointQuery`), against
/// the same queries parsed and planned on every call.
@Suite(
    "PostgreSQL point queries compiled per dictionary shape",
    .enabled(if: PostgresTestServer.isConfigured, PostgresTestServer.skipReason))
struct PostgresPointQueryTests {
    static let mapping = ObjectMapping<Document>(idField: "id", encode: { $0 }, decode: { $0 })

    /// Values of every scalar kind, numbers equal across kinds, signed zeros, and strings long
    /// enough to be cut to fit a key (which widens a window that the re-check then narrows).
    static let values: [Value] = [
        .null, .bool(false), .bool(true), .int(0), .int(1), .int(-1), .double(1.0), .double(0.0), .double(-0.0),
        .double(2.5), .string(""), .string("a"), .string("é"), .string(String(repeating: "x", count: 600)),
        .string(String(repeating: "x", count: 600) + "y"), .bytes([0, 1]), .bytes([])
    ]

    @Test("every call of a compiled shape answers what parsing and planning it answers")
    func compiledMatchesPlanned() async throws {
        let store = try await PostgresTestServer.sharedStore()
        let collection = try await store.collection(
            PostgresTestServer.uniqueName("points"), mapping: Self.mapping,
            indexes: [IndexDefinition("a"), IndexDefinition("bc", fields: ["b", "c"])])
        var generator = SystemRandomNumberGenerator()
        var documents: [Document] = []
        for number in 0..<300 {
            var document: Document = ["id": .int(Int64(number))]
            for field in ["a", "b", "c", "d"] where Int.random(in: 0..<8, using: &generator) != 0 {
                document[field] = Self.values.randomElement(using: &generator)!
            }
            documents.append(document)
        }
        _ = try await collection.add(contentsOf: documents)
        // Point shapes (one index's leading fields fixed) and shapes the general path answers: no
        // index, two keys on one field, the id field.
        let shapes: [[String]] = [["a"], ["b", "c"], ["b"], ["a", "d"], ["c ==", "b"], ["d"], ["a", "a =="], ["id"]]
        for _ in 0..<400 {
            let keys = shapes.randomElement(using: &generator)!
            var params: [String: Value] = [:]
            // NaN only asked for: a document holding it would not equal itself.
            for key in keys { params[key] = (Self.values + [.double(.nan)]).randomElement(using: &generator)! }
            let compiled = try await collection.query(params: params, options: nil)
            let query = try Query(params: params, options: [:])
            let planned: [Document] = try await collection.query(query)
            #expect(compiled == planned, "\(params)")
        }
        let (shapesKept, compiledShapes) = collection.layout.dictionaryShapes.withLock {
            ($0.table.shapes.count, $0.table.compiledCount)
        }
        #expect(shapesKept == shapes.count)
        #expect(compiledShapes == 5)
    }

    @Test("a shape compiled over one index list is compiled again over the next")
    func indexChangeRecompiles() async throws {
        let store = try await PostgresTestServer.sharedStore()
        let name = PostgresTestServer.uniqueName("recompiled")
        let first = try await store.collection(name, mapping: Self.mapping, indexes: [IndexDefinition("b")])
        _ = try await first.add(contentsOf: [["id": 1, "b": "x", "c": "y"], ["id": 2, "b": "x", "c": "z"]])
        let params: [String: Value] = ["b": "x", "c": "y"]
        func compiledIndex(_ collection: PostgresCollection<Document>) -> String? {
            var values = PointValues()
            let digest = DictionaryDigest.of(params)!
            return collection.layout.dictionaryShape(of: params, digest: digest, values: &values)?
                .map { $0.index.definition.name }
        }
        #expect(try await first.query(params: params, options: nil).map { $0["id"] } == [.int(1)])
        #expect(compiledIndex(first) == "b")
        let second = try await store.collection(
            name, mapping: Self.mapping, indexes: [IndexDefinition("b"), IndexDefinition("bc", fields: ["b", "c"])])
        #expect(compiledIndex(second) == nil)
        #expect(try await second.query(params: params, options: nil).map { $0["id"] } == [.int(1)])
        #expect(compiledIndex(second) == "bc")
        // Each handle plans over its own index list, compiled or not.
        #expect(compiledIndex(first) == "b")
        // A new index list on the same handle forgets what was compiled over the old one.
        second.layout.replaceIndexes(second.layout.indexes)
        #expect(compiledIndex(second) == nil)
        #expect(try await second.query(params: params, options: nil).map { $0["id"] } == [.int(1)])
        #expect(compiledIndex(second) == "bc")
    }

    @Test("a bad key is reported on every call, never compiled")
    func badKeysStayErrors() async throws {
        let store = try await PostgresTestServer.sharedStore()
        let collection = try await store.collection(
            PostgresTestServer.uniqueName("badkeys"), mapping: Self.mapping, indexes: [IndexDefinition("a")])
        for _ in 0..<3 {
            await #expect(throws: DataStoreError.self) {
                _ = try await collection.query(params: ["a <<": 1], options: nil)
            }
        }
        #expect(collection.layout.dictionaryShapes.withLock { $0.table.shapes.count } == 0)
    }
}
