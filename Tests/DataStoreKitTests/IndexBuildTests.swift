// Building an index over stored records (chunks sorted and put in key order) must give the very
// entries that writes give an index declared before the records.
import DataStoreCore
import Foundation
import ModelConformance
import Synchronization
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

    @Test("a build whose sort spills many runs and appends in many commits equals one kept up by writes")
    func spilledBuildEqualsMaintained() async throws {
        let fast = DataStore.Options(durability: .none)
        let (built, maintained) = (try TemporaryStore(options: fast), try TemporaryStore(options: fast))
        defer {
            built.remove()
            maintained.remove()
        }
        let documents = Self.documents(300)
        let declared = try await Self.collection(maintained.store, indexes: Self.definitions)
        _ = try await declared.add(contentsOf: documents)
        let plain = try await Self.collection(built.store, indexes: [])
        _ = try await plain.add(contentsOf: documents)

        let runs = Mutex<[(runs: Int, largest: Int)]>([])
        let bound = 4_096
        built.store.indexBuildSettings.withLock { settings in
            settings.memoryBound = bound
            settings.batchBytes = 2_048
            settings.pause = { stage in
                if case .extracted(let spilled, let largest) = stage { runs.withLock { $0.append((spilled, largest)) } }
            }
        }
        let later = try await Self.collection(built.store, indexes: Self.definitions)
        let expected = try Self.entries(maintained.store, declared)
        let found = try Self.entries(built.store, later)
        for name in expected.keys.sorted() { #expect(found[name] == expected[name], "index \(name)") }
        try expectConsistent(built.store)
        // Every build but the unique one sorts; a run holds at most the bound and one record's entries.
        let seen = runs.withLock { $0 }
        #expect(seen.count == Self.definitions.count - 1)
        #expect(seen.allSatisfy { $0.runs > 1 })
        let largestRecord = documents.map { RecordCodecSize.of($0) }.max() ?? 0
        #expect(seen.allSatisfy { $0.largest < bound + 2 * largestRecord + 1_024 })
    }

    @Test("writes made while an index is built from a snapshot are all in it when it is ready")
    func concurrentWritesDuringBuild() async throws {
        let fast = DataStore.Options(durability: .none)
        let (built, reference) = (try TemporaryStore(options: fast), try TemporaryStore(options: fast))
        defer {
            built.remove()
            reference.remove()
        }
        let documents = Self.documents(120)
        let plain = try await Self.collection(built.store, indexes: [])
        _ = try await plain.add(contentsOf: documents)
        let round = Atomic<Int>(0)
        built.store.indexBuildSettings.withLock { settings in
            settings.batchBytes = 1_024
            settings.pause = { _ in try await Self.writeRound(round.add(1, ordering: .relaxed).oldValue, to: plain) }
        }
        let later = try await Self.collection(built.store, indexes: Self.definitions)
        #expect(later.storage.indexes.allSatisfy { $0.state == .ready && $0.buildLog == nil })
        #expect(round.load(ordering: .relaxed) > Self.definitions.count * 3)
        try expectConsistent(built.store)

        // The same documents written with the indexes declared first give the very same entries.
        let final = try await later.query(params: nil, options: nil)
        let declared = try await Self.collection(reference.store, indexes: Self.definitions)
        _ = try await declared.add(contentsOf: final)
        let expected = try Self.entries(reference.store, declared)
        let found = try Self.entries(built.store, later)
        for name in expected.keys.sorted() { #expect(found[name] == expected[name], "index \(name)") }
        // And a write after the build is maintained as any other.
        _ = try await later.put(id: "d000", object: ["id": "d000", "a": 99, "b": "after", "copy": "after"])
        try expectConsistent(built.store)
    }

    /// One round of writes during a build: a record moved in every index, one removed, one
    /// added, one removed and added again, one written twice.
    static func writeRound(_ round: Int, to collection: StoreCollection<Document>) async throws {
        var rng = SeededGenerator(seed: UInt64(1_000 + round))
        let moved = String(format: "d%03d", (round * 7) % 120)
        var document = DifferentialTests.randomDocument((round * 7) % 120, &rng)
        document["copy"] = .string("moved-\(round)")
        _ = try await collection.put(id: .string(moved), object: document)
        _ = try? await collection.remove(id: .string(String(format: "d%03d", (round * 11 + 3) % 120)))
        var added = DifferentialTests.randomDocument(500 + round, &rng)
        added["copy"] = .string("added-\(round)")
        _ = try await collection.add(object: added)
        let again = String(format: "d%03d", (round * 13 + 5) % 120)
        if let old = try? await collection.remove(id: .string(again)) {
            var back = old
            back["a"] = .int(Int64(round))
            _ = try await collection.add(object: back)
        }
        for pass in 0..<2 {
            _ = try? await collection.update(id: .string(moved), set: ["b": .int(Int64(round * 10 + pass))], unset: [])
        }
    }

    @Test("a build that a stored record breaks leaves no index, and writes go on")
    func failedSnapshotBuildLeavesNothing() async throws {
        let temporary = try TemporaryStore(options: DataStore.Options(durability: .none))
        defer { temporary.remove() }
        let plain = try await Self.collection(temporary.store, indexes: [])
        _ = try await plain.add(contentsOf: [["id": "x", "a": 1], ["id": "y", "a": [1, 2]], ["id": "z", "a": 3]])
        await #expect(throws: DataStoreError.self) {
            _ = try await Self.collection(temporary.store, indexes: [IndexDefinition("a")])
        }
        #expect(plain.storage.indexes.isEmpty)
        _ = try await plain.put(id: "w", object: ["id": "w", "a": 4])
        try expectConsistent(temporary.store)
    }
}

/// The encoded size of a document's record, for bounding what one record adds to a sorted run.
enum RecordCodecSize {
    static func of(_ document: Document) -> Int { (try? RecordCodec.encode(document).count) ?? 0 }
}
