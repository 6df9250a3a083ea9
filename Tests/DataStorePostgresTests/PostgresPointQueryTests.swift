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
        // Window shapes (one index's leading fields fixed, the next maybe bounded), with a limit or
        // without, and shapes the general path answers: no index, two keys on one field, the id
        // field, two ranges on one field.
        let compiling: [[String]] = [
            ["a"], ["b", "c"], ["b"], ["a", "d"], ["c ==", "b"], ["a >="], ["a <", "d"], ["b", "c >"], ["b <="],
            ["c >", "b >"]
        ]
        let general: [[String]] = [["d"], ["a", "a =="], ["id"], ["a >", "a <"]]
        let options: [[String: Value]?] = [nil, [:], ["limit": 3], ["limit": 1], ["limit": 0], ["offset": 1]]
        // NaN only asked for: a document holding it would not equal itself.
        let asked = Self.values + [.double(.nan)]
        for _ in 0..<600 {
            let keys = (compiling + general).randomElement(using: &generator)!
            var params: [String: Value] = [:]
            for key in keys { params[key] = asked.randomElement(using: &generator)! }
            let option = options.randomElement(using: &generator)!
            // A range compared with what cannot be ordered is an error on both paths.
            let answered = await Self.outcome { try await collection.query(params: params, options: option) }
            let planned = await Self.outcome { try await collection.query(try Query(params: params, options: option)) }
            #expect(answered == planned, "\(params) \(String(describing: option))")
        }
        // Each set of keys, limited or not, is compiled exactly when it has a window shape.
        for keys in compiling + general {
            for limited in [false, true] {
                let params = Dictionary(uniqueKeysWithValues: keys.map { ($0, Value.int(1)) })
                _ = try await collection.query(params: params, options: limited ? ["limit": 2] : nil)
                var values = PointValues()
                let digest = try #require(DictionaryDigest.of(params, limited: limited))
                let known = collection.layout.dictionaryShape(
                    of: params, limited: limited, digest: digest, values: &values)
                let compiled = known.map { $0 != nil }
                #expect(compiled == compiling.contains(keys), "\(keys) limited: \(limited)")
            }
        }
    }

    /// The documents `read` returns, or its error's code and message.
    static func outcome(_ read: () async throws -> [Document]) async -> Result<[Document], OutcomeError> {
        do { return .success(try await read()) } catch let error as DataStoreError {
            return .failure(OutcomeError(description: "\(error.code) \(error.message)"))
        } catch {
            return .failure(OutcomeError(description: "\(error)"))
        }
    }

    struct OutcomeError: Error, Equatable {
        let description: String
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
            return collection.layout.dictionaryShape(of: params, limited: false, digest: digest, values: &values)?
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
