// Building an index over stored records (chunks sorted and put in key order) must give the very
// entries that writes give an index declared before the records.
import DataStoreCore
import Foundation
import ModelConformance
import Testing
@testable import DataStoreKit
@testable import LMDB

@Suite("Index build over stored records")
struct IndexBuildTests {
    static let definitions = [
        IndexDefinition("a"),
        IndexDefinition("pair", fields: ["a", .descending("b")]),
        IndexDefinition("tags", multiValue: true),
        IndexDefinition("nested", fields: ["n.x"]),
        IndexDefinition("kelvin", fields: ["K"]),
        IndexDefinition("covered", fields: ["b"], covering: .document),
        IndexDefinition("unique_id_copy", fields: ["copy"], unique: true)
    ]

    static func documents(_ count: Int) -> [Document] {
        var rng = SeededGenerator(seed: 18)
        return (0..<count).map { number in
            var document = DifferentialTests.randomDocument(number, &rng)
            document["copy"] = .string("c\(number)")
            // A field spelled with the Kelvin sign, which a document finds under "K" (canonical equivalence).
            if number % 5 == 0 { document["\u{212A}"] = .int(Int64(number % 3)) }
            if number % 7 == 0 { document["K"] = .string("plain") }
            return document
        }
    }

    static func collection(_ store: DataStore, indexes: [IndexDefinition], chunk: Int = 1_000) async throws
        -> StoreCollection<Document>
    {
        try await store.collection(
            "docs", mapping: ObjectMapping<Document>(idField: "id", encode: { $0 }, decode: { $0 }),
            indexes: indexes, indexBuildChunk: chunk)
    }

    /// Every entry key of every index, in key order, with the value of entries that hold no copy
    /// (a copy holds its record's version, which differs between stores; check() compares it).
    static func entries(_ store: DataStore, _ collection: StoreCollection<Document>) throws -> [String: [[UInt8]]] {
        var all: [String: [[UInt8]]] = [:]
        for index in collection.storage.indexes {
            try store.environment.read { transaction in
                try transaction.walk(index.database) { key, value in
                    let shown = index.definition.coversDocument ? [] : [0xFF] + Array(value)
                    all[index.name, default: []].append(Array(key) + shown)
                    return true
                }
            }
        }
        return all
    }

    @Test("an index built in sorted chunks holds exactly the entries writes would have made", arguments: [1, 7, 1_000])
    func builtEqualsMaintained(chunk: Int) async throws {
        let fast = DataStore.Options(durability: .none)
        let (built, maintained) = (try TemporaryStore(options: fast), try TemporaryStore(options: fast))
        defer {
            built.remove()
            maintained.remove()
        }
        let documents = Self.documents(90)
        let declared = try await Self.collection(maintained.store, indexes: Self.definitions)
        _ = try await declared.add(contentsOf: documents)

        let plain = try await Self.collection(built.store, indexes: [])
        _ = try await plain.add(contentsOf: documents)
        let later = try await Self.collection(built.store, indexes: Self.definitions, chunk: chunk)
        #expect(later.storage.indexes.allSatisfy { $0.state == .ready })

        let expected = try Self.entries(maintained.store, declared)
        #expect(expected.count == Self.definitions.count)
        let found = try Self.entries(built.store, later)
        for name in expected.keys.sorted() {
            #expect(
                found[name] == expected[name],
                "index \(name): \(found[name]?.count ?? 0) vs \(expected[name]?.count ?? 0)")
        }
        try expectConsistent(built.store)
    }

    @Test("a build cut short is never used, and the next declaration completes it")
    func interruptedBuildCompletes() async throws {
        let temporary = try TemporaryStore(options: DataStore.Options(durability: .none))
        defer { temporary.remove() }
        let documents = Self.documents(40)
        let first = try await Self.collection(temporary.store, indexes: [])
        _ = try await first.add(contentsOf: documents)
        // What a process killed after the build's first chunk leaves: the index recorded as
        // building in _meta, with the entries of some records only.
        let definition = IndexDefinition("pair", fields: ["a", .descending("b")], covering: .document)
        let store = temporary.store
        let database = try store.environment.openDatabase(named: "i/docs/pair", options: .create)
        let partial = IndexTable(definition: definition, database: database, state: .building)
        try store.environment.write { transaction in
            var copies: [(key: [UInt8], record: [UInt8])] = []
            try transaction.walk(first.storage.records) { key, record in
                for entry in try partial.entries(
                    forRecord: RecordVersion.body(record), idKey: Array(key), collection: "docs")
                {
                    copies.append((entry.key, Array(record)))
                }
                return copies.count < 10
            }
            for copy in copies { try transaction.put(copy.record, forKey: copy.key, in: database) }
            let schema = StoreSchema.Collection(
                idField: "id", indexes: [StoreSchema.Index(definition: definition, state: .building, declared: nil)])
            try StoreSchema.write(schema, for: "docs", in: &transaction, meta: store.meta)
        }
        store.close()

        let reopened = try DataStore.open(path: temporary.path, options: DataStore.Options(durability: .none))
        defer { reopened.close() }
        let undeclared = try await Self.collection(reopened, indexes: [])
        #expect(undeclared.storage.indexes.map(\.state) == [.ready])
        let declared = try await Self.collection(reopened, indexes: [definition])
        #expect(declared.storage.indexes.map(\.state) == [.ready])
        let plan = try declared.explain(params: ["a": 1], options: nil)
        #expect(plan.description.hasPrefix("covering index scan of pair"))
        #expect(try reopened.check().isEmpty)
        let count = try await declared.count(params: ["a": 1])
        #expect(count == documents.filter { $0["a"] == 1 }.count)
    }

    @Test("a unique index built over records that share a value is refused and leaves nothing")
    func uniqueBuildRefusesDuplicates() async throws {
        let temporary = try TemporaryStore(options: DataStore.Options(durability: .none))
        defer { temporary.remove() }
        let plain = try await Self.collection(temporary.store, indexes: [])
        _ = try await plain.add(contentsOf: [
            ["id": "x", "copy": "same"], ["id": "y", "copy": "other"], ["id": "z", "copy": "same"]
        ])
        await #expect(throws: DataStoreError.self) {
            _ = try await Self.collection(temporary.store, indexes: [IndexDefinition("copy", unique: true)], chunk: 2)
        }
        #expect(plain.storage.indexes.isEmpty)
        try expectConsistent(temporary.store)
    }
}
