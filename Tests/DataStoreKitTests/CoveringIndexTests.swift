// Covering indexes: entries that carry their records, so a query the index serves reads none.
// A counter of records looked up through index entries, not a timing, says so.
import DataStoreCore
import Foundation
import ModelConformance
import Testing
@testable import DataStoreKit
@testable import LMDB

@Suite("Covering indexes")
struct CoveringIndexTests {
    /// The collection `name` with its two indexes covering or not; a declaration that redefines
    /// what is stored (`.drop`: the whole list), rebuilding them.
    static func notes(_ store: DataStore, covering: Bool, name: String = "Note") async throws -> StoreCollection<Note> {
        try await store.collection(
            Note.self, name: name, idField: "id",
            indexes: [
                IndexDefinition("created_ts", covering: covering ? .document : nil),
                IndexDefinition("pair", fields: ["from_user_key", "to_user_key"], covering: covering ? .document : nil)
            ], undeclaredIndexes: .drop)
    }

    static func fill(_ notes: StoreCollection<Note>, count: Int) async throws {
        _ = try await notes.add(
            contentsOf: (0..<count).map { number in
                note(
                    "n\(number)", from: "u\(number % 7)", to: "u\(number % 3)", ts: Double(number % 50),
                    message: "message \(number)")
            })
    }

    @Test("a range query through a covering index reads no record; the same index without covering reads each")
    func rangeQueryReadsNoRecord() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let covered = try await Self.notes(temporary.store, covering: true, name: "Covered")
        let plain = try await Self.notes(temporary.store, covering: false, name: "Plain")
        try await Self.fill(covered, count: 200)
        try await Self.fill(plain, count: 200)
        let params: [String: Value] = ["created_ts >=": 20, "type": "text"]
        let options: [String: Value] = ["limit": 30, "sort": ["created_ts"]]

        let before = (covered.storage.recordLookups, plain.storage.recordLookups)
        let fromCopies = try await covered.query(params: params, options: options)
        let fromRecords = try await plain.query(params: params, options: options)
        #expect(fromCopies.count == 30)
        #expect(fromCopies == fromRecords)
        #expect(covered.storage.recordLookups == before.0)
        // The run of equal sort keys that straddles the limit is read to its end.
        #expect(plain.storage.recordLookups >= before.1 + 30)

        let plan = try covered.explain(params: params, options: options)
        #expect(plan.description.hasPrefix("covering index scan of created_ts on Covered (created_ts in [20, inf])"))
        #expect(try plain.explain(params: params, options: options).description.hasPrefix("index scan of created_ts"))

        // Streams and pages walk the same entries in batches, and counts re-check on the copies.
        let streamed = try covered.documents(matching: Query(params: params, options: options))
        #expect(streamed.count == 30)
        #expect(
            try await covered.count(params: ["from_user_key": "u1", "to_user_key": "u2", "message": "message 8"]) == 1)
        #expect(covered.storage.recordLookups == before.0)
        try expectConsistent(temporary.store)
    }

    @Test("a write that keeps the index key still rewrites the covered copy")
    func unchangedKeyRewritesCopy() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let notes = try await Self.notes(temporary.store, covering: true)
        try await Self.fill(notes, count: 20)
        var changed = try await notes.get(id: "n5")
        changed.message = "rewritten"
        _ = try await notes.put(id: "n5", object: changed)
        _ = try await notes.update(id: "n6", set: ["type": "video"], unset: [])
        let found = try await notes.query(params: ["created_ts": 5], options: nil)
        #expect(found.map(\.message) == ["rewritten"])
        let video = try await notes.query(params: ["created_ts": 6, "type": "video"], options: nil)
        #expect(video.map(\.id) == ["n6"])
        #expect(try await notes.remove(params: ["created_ts >=": 10]) == 10)
        #expect(try await notes.query(params: ["created_ts >=": 0], options: nil).count == 10)
        try expectConsistent(temporary.store)
    }

    @Test("the entry value is the stored record, byte for byte (docs/encoding.md vector)")
    func entryValueVector() async throws {
        var record: [UInt8] = []
        RecordVersion.append(7, to: &record)
        record += try RecordCodec.encode(["id": "n1", "ts": 1])
        #expect(
            StoreLayoutTests.hex(record)
                == "00 00 00 00 00 00 00 07 01 02 02 69 64 09 02 6E 31 02 74 73 04 01")
        let definition = IndexDefinition("ts", covering: .document)
        let index = IndexTable(
            definition: definition, database: Database(handle: 1, name: "x", options: []), state: .ready)
        let idKey = try StorageKeys.idKey("n1", collection: "c")
        let entries = try index.entries(for: ["id": "n1", "ts": 1], idKey: idKey, collection: "c")
        #expect(entries.map { StoreLayoutTests.hex($0.key) } == ["30 BF F0 00 00 00 00 00 00 00 40 6E 31 00 01 05"])
        #expect(index.entryValue(record: record) == record)
        let plain = IndexTable(
            definition: IndexDefinition("ts"), database: Database(handle: 1, name: "x", options: []), state: .ready)
        #expect(plain.entryValue(record: record).isEmpty)

        // In a store: each entry holds what the records database holds under its id.
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let notes = try await Self.notes(temporary.store, covering: true)
        try await Self.fill(notes, count: 5)
        let stored = notes.storage.indexes.first { $0.name == "created_ts" }!
        try temporary.store.environment.read { transaction in
            var entries = 0
            try transaction.walk(stored.database) { key, value in
                let idKey = StorageKeys.idKey(inIndexKey: key)!
                let record = try transaction.withValue(forKey: idKey, in: notes.storage.records) { Array($0) }
                #expect(record == Array(value))
                entries += 1
                return true
            }
            #expect(entries == 5)
        }
    }

    @Test("the covering choice is stored; a definition written before it reads as not covering")
    func storedDefinition() throws {
        let plain = try JSONEncoder().encode(IndexDefinition("created_ts"))
        #expect(!String(decoding: plain, as: UTF8.self).contains("covering"))
        let covering = try JSONEncoder().encode(IndexDefinition("created_ts", covering: .document))
        #expect(String(decoding: covering, as: UTF8.self).contains("\"covering\":\"document\""))
        #expect(try JSONDecoder().decode(IndexDefinition.self, from: covering).covering == .document)

        let before =
            #"{"name":"created_ts","fields":[{"name":"created_ts","descending":false}],"unique":false,"multiValue":false}"#
        let old = try JSONDecoder().decode(IndexDefinition.self, from: Data(before.utf8))
        #expect(old.covering == nil)
        #expect(old == IndexDefinition("created_ts"))

        let unknown =
            #"{"name":"a","fields":[{"name":"a","descending":false}],"unique":false,"multiValue":false,"covering":"sideways"}"#
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(IndexDefinition.self, from: Data(unknown.utf8)) }
        #expect(IndexDefinition("a", covering: .document).description == "a(a, covering)")
    }

    @Test("a store is written in format 2 once it holds a covering index, so older builds refuse it")
    func formatVersion() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        _ = try await Self.notes(temporary.store, covering: false)
        #expect(try temporary.store.statistics().formatVersion == 1)
        _ = try await Self.notes(temporary.store, covering: true, name: "Covered")
        #expect(try temporary.store.statistics().formatVersion == 2)
        #expect(DataStore.formatVersions.store == 3)
    }

    @Test("declaring covering on a stored index rebuilds it, and declaring it away rebuilds it again")
    func redefinitionRebuilds() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let plain = try await Self.notes(temporary.store, covering: false)
        try await Self.fill(plain, count: 60)
        let params: [String: Value] = ["created_ts >=": 45]
        let expected = try await plain.query(params: params, options: ["sort": ["created_ts", "id"]])

        let covered = try await Self.notes(temporary.store, covering: true)
        #expect(covered.indexes.allSatisfy { $0.covering == .document })
        let lookups = covered.storage.recordLookups
        #expect(try await covered.query(params: params, options: ["sort": ["created_ts", "id"]]) == expected)
        #expect(covered.storage.recordLookups == lookups)
        try expectConsistent(temporary.store)

        let again = try await Self.notes(temporary.store, covering: false)
        #expect(again.indexes.allSatisfy { $0.covering == nil })
        #expect(try await again.query(params: params, options: ["sort": ["created_ts", "id"]]) == expected)
        #expect(again.storage.recordLookups > lookups)
        try expectConsistent(temporary.store)
    }

    @Test("check() names a covered copy that differs from its record")
    func checkFindsTamperedCopy() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let notes = try await Self.notes(temporary.store, covering: true)
        try await Self.fill(notes, count: 10)
        try expectConsistent(temporary.store)
        let index = notes.storage.indexes.first { $0.name == "created_ts" }!
        let idKey = try StorageKeys.idKey("n3", collection: "Note")
        let document = try #require(try notes.document(id: "n3"))
        let entry = try index.entries(for: document, idKey: idKey, collection: "Note")[0]
        // A test-only write around the writer: one byte of the copy's version changed.
        try temporary.store.environment.write { transaction in
            var value = try #require(try transaction.value(forKey: entry.key, in: index.database))
            value[7] ^= 0xFF
            try transaction.put(value, forKey: entry.key, in: index.database)
        }
        let problems = try temporary.store.check()
        #expect(problems.count == 1)
        #expect(problems.first?.index == "created_ts")
        #expect(problems.first?.message == #"the covered copy of record "n3" differs from the record"#)
    }

    @Test("big documents: copies of several hundred kilobytes are kept and answered")
    func bigDocuments() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let notes = try await Self.notes(temporary.store, covering: true)
        let big = String(repeating: "x", count: 300_000)
        for number in 0..<6 {
            _ = try await notes.add(object: note("b\(number)", ts: Double(number), message: big + "\(number)"))
        }
        let found = try await notes.query(params: ["created_ts >=": 2], options: ["sort": ["created_ts"]])
        #expect(found.map(\.id) == ["b2", "b3", "b4", "b5"])
        #expect(found.allSatisfy { $0.message.utf8.count == 300_001 })
        var changed = found[0]
        changed.message = String(repeating: "y", count: 500_000)
        _ = try await notes.put(id: "b2", object: changed)
        #expect(try await notes.query(params: ["created_ts": 2], options: nil).first?.message.utf8.count == 500_000)
        try expectConsistent(temporary.store)
    }
}

/// The same random documents, writes and queries on two stores, one whose indexes cover
/// documents and one whose indexes do not: every answer must be the same.
@Suite("Differential: covering vs plain indexes")
struct CoveringDifferentialTests {
    static func indexes(covering: Bool) -> [IndexDefinition] {
        let copy: IndexDefinition.Covering? = covering ? .document : nil
        return [
            IndexDefinition("a", covering: copy),
            IndexDefinition("b_desc", fields: [.descending("b")], covering: copy),
            IndexDefinition("ab", fields: ["a", "b"], covering: copy),
            IndexDefinition("tags", multiValue: true, covering: copy),
            IndexDefinition("nxy", fields: ["n.x", .descending("n.y")], covering: copy)
        ]
    }

    static func collection(_ store: DataStore, covering: Bool) async throws -> StoreCollection<Document> {
        try await store.collection(
            "docs", mapping: ObjectMapping<Document>(idField: "id", encode: { $0 }, decode: { $0 }),
            indexes: indexes(covering: covering))
    }

    @Test("answers, counts and batched walks agree over random writes", arguments: Array(UInt64(1)...3))
    func agree(seed: UInt64) async throws {
        var rng = SeededGenerator(seed: seed)
        let fast = DataStore.Options(durability: .none)
        let (first, second) = (try TemporaryStore(options: fast), try TemporaryStore(options: fast))
        defer {
            first.remove()
            second.remove()
        }
        let covered = try await Self.collection(first.store, covering: true)
        let plain = try await Self.collection(second.store, covering: false)
        let both = [covered, plain]
        let documents = (0..<100).map { DifferentialTests.randomDocument($0, &rng) }
        for collection in both { _ = try await collection.add(contentsOf: documents) }
        for _ in 0..<3 {
            for _ in 0..<60 {
                let query = try DifferentialTests.randomQuery(&rng)
                let answers = try both.map { try $0.query(query) }
                #expect(answers[0] == answers[1], "\(query) | \(covered.plan(for: query))")
                #expect(try covered.countOutcome(query).count == plain.countOutcome(query).count, "count \(query)")
                let walks = try both.map { try DifferentialTests.walk($0, query, batch: 3) }
                #expect(walks[0] == walks[1], "walk \(query)")
            }
            try await Self.mutate(both, &rng)
            try expectConsistent(first.store)
            try expectConsistent(second.store)
        }
        #expect(covered.storage.recordLookups == 0)
        #expect(plain.storage.recordLookups > 0)
    }

    /// Random replacements, partial updates and removals, the same on every collection.
    static func mutate(_ collections: [StoreCollection<Document>], _ rng: inout SeededGenerator) async throws {
        let ids = try await collections[0].all().compactMap { $0["id"]?.stringValue }
        for id in ids {
            switch Int.random(in: 0..<8, using: &rng) {
            case 0:
                var document = DifferentialTests.randomDocument(0, &rng)
                document["id"] = .string(id)
                for collection in collections { _ = try await collection.put(id: .string(id), object: document) }
            case 1:
                let value = DifferentialTests.randomValue(&rng) ?? .int(1)
                for collection in collections {
                    _ = try await collection.update(id: .string(id), set: ["c": value], unset: [])
                }
            case 2:
                for collection in collections { _ = try await collection.remove(id: .string(id)) }
            default:
                continue
            }
        }
        let value = DifferentialTests.randomValue(&rng) ?? .int(0)
        let removed = try await collections.asyncMap { try await $0.remove(params: ["a": value]) }
        #expect(Set(removed).count == 1)
    }
}

extension Array {
    fileprivate func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var results: [T] = []
        for element in self { results.append(try await transform(element)) }
        return results
    }
}
