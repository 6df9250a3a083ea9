// Nested fields in the store: indexes on paths (multi-value through arrays of objects), the
// planner and explain, counts from index entries, sorted streams, and the escape for dots.
import DataStoreCore
@testable import DataStoreKit
import Testing

@Suite("Nested fields in the store")
struct NestedFieldTests {
    static func people() async throws -> (TemporaryStore, StoreCollection<Document>) {
        let temporary = try TemporaryStore()
        let people = try await temporary.store.collection(
            "Person", mapping: .documents(idField: "id"),
            indexes: [
                IndexDefinition("city", fields: ["address.city", .descending("address.zip")]),
                IndexDefinition("tagNames", fields: ["tags.name"], multiValue: true),
                IndexDefinition("dotted", fields: [#"a\.b"#])
            ])
        var documents: [Document] = []
        for number in 0..<60 {
            var document: Document = [
                "id": .int(Int64(number)),
                "address": ["city": .string(["Paris", "Rome", "Oslo"][number % 3]), "zip": .int(Int64(number % 7))],
                "tags": .array((0..<(number % 4)).map { ["name": .string("t\($0 + number % 2)")] }),
                "a.b": .int(Int64(number % 5))
            ]
            if number % 10 == 0 { document["address"] = ["city": "Paris"] } // no zip
            documents.append(document)
        }
        try await people.put(contentsOf: documents)
        return (temporary, people)
    }

    @Test("the planner uses indexes on paths, and explain names them")
    func plans() async throws {
        let (temporary, people) = try await Self.people()
        defer { temporary.remove() }
        let city = try people.explain(params: ["address.city": "Rome"], options: ["sort": "-address.zip"])
        #expect(
            city.description
                == #"index scan of city on Person (address.city == "Rome"), forward; filter: address.city == "Rome"; sort: address.zip desc from index order"#
        )
        let tags = try people.explain(params: ["tags.name": "t2"])
        #expect(tags.description.hasPrefix(#"index scan of tagNames on Person (tags.name == "t2")"#), "\(tags)")
        let dotted = try people.explain(params: [#"a\.b"#: 3])
        #expect(dotted.description.hasPrefix(#"index scan of dotted on Person (a\.b == 3)"#), "\(dotted)")
        #expect(try people.explain(params: ["a.b": 3]).description.hasPrefix("full scan"))
    }

    @Test("queries, counts and streams over paths give the brute-force answer")
    func answers() async throws {
        let (temporary, people) = try await Self.people()
        defer { temporary.remove() }
        let all = try people.query(Query())
        let cases: [([String: Value], [String: Value])] = [
            (["address.city": "Rome"], ["sort": "-address.zip"]),
            (["address.city": "Paris", "address.zip <": 4], [:]),
            (["address.zip exists": false], [:]),
            (["tags.name": "t2"], [:]),
            (["tags.name in": ["t0", "t3"]], [:]),
            ([#"a\.b"#: 3], [:]),
            (["a.b": 3], [:]),
            ([:], ["sort": ["address.city", "-address.zip"]])
        ]
        for (params, options) in cases {
            let query = try Query(params: params, options: options)
            let expected = query.evaluate(all, idField: "id").map { $0["id"]! }
            let answered = try people.query(query).map { $0["id"]! }
            #expect(options.isEmpty ? Set(answered) == Set(expected) : answered == expected, "\(params) \(options)")
            #expect(try people.count(query) == expected.count, "count \(params)")
            let streamed = try people.read(batchSize: 4) { snapshot in
                Array(try snapshot.documents(params: params, options: options)).map { $0["id"]! }
            }
            #expect(streamed == answered, "read \(params) \(options)")
        }
        #expect(try people.countOutcome(Query(params: ["address.city": "Oslo"], options: nil)).recordsRead == 0)
        #expect(try people.countOutcome(Query(params: ["tags.name": "t1"], options: nil)).fromIndex)
        try expectConsistent(temporary.store)
    }

    @Test("a single-value index on a path through an array of objects refuses the array, naming the index")
    func singleValueRefusesArrays() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let people = try await temporary.store.collection(
            "Person", mapping: .documents(idField: "id"), indexes: [IndexDefinition("tagName", fields: ["tags.name"])])
        _ = try await people.put(id: 1, object: ["tags": ["name": "one"]])
        let error = await #expect(throws: DataStoreError.self) {
            _ = try await people.put(id: 2, object: ["tags": [["name": "a"], ["name": "b"]]])
        }
        #expect(
            error?.code == .invalidValue && error?.message.contains("tagName") == true, "\(String(describing: error))")
        await #expect(throws: DataStoreError.self) {
            _ = try await temporary.store.collection(
                "Other", mapping: .documents(idField: "id"), indexes: [IndexDefinition("bad", fields: ["a..b"])])
        }
    }

    @Test("an index stored before paths existed keeps naming its literal field")
    func olderSchemas() throws {
        var stored = StoreSchema.Index(
            definition: IndexDefinition("legacy", fields: ["a.b", "plain"]), state: .ready, declared: nil)
        stored.paths = nil
        #expect(stored.readingPaths.definition.fields.map(\.name) == [#"a\.b"#, "plain"])
        #expect(stored.readingPaths.paths == true)
        let current = StoreSchema.Index(definition: IndexDefinition("p", fields: ["a.b"]), state: .ready, declared: nil)
        #expect(current.readingPaths.definition.fields.map(\.name) == ["a.b"])
    }
}
