// Compaction: a collection's databases rewritten in key order into full pages, every byte kept.
import DataStoreCore
import Foundation
import Synchronization
import Testing
@testable import DataStoreKit
@testable import LMDB

@Suite("Compaction")
struct CompactionTests {
    static func notes(_ store: DataStore) async throws -> StoreCollection<Note> {
        try await store.collection(
            Note.self, idField: "id",
            indexes: [
                IndexDefinition("created_ts"),
                IndexDefinition("pair", fields: ["from_user_key", "to_user_key"], covering: .document)
            ])
    }

    /// Adds `count` notes with random ids, in batches, so pages split as they do under random inserts.
    static func fillInRandomOrder(_ notes: StoreCollection<Note>, count: Int) async throws {
        for start in stride(from: 0, to: count, by: 50) {
            _ = try await notes.add(
                contentsOf: (start..<min(start + 50, count)).map { number in
                    note(
                        UUID().uuidString, from: "u\(number % 13)", to: "u\(number % 5)",
                        ts: Double.random(in: 0..<1_000_000), message: String(repeating: "m", count: number % 90))
                })
        }
    }

    /// Every entry of each of the collection's databases, in key order.
    static func entries(of storage: CollectionTable, in store: DataStore) throws -> [[[UInt8]]] {
        try store.environment.read { transaction in
            try storage.databases.map { database in
                var entries: [[UInt8]] = []
                try transaction.walk(database) { key, value in
                    entries.append(Array(key))
                    entries.append(Array(value))
                    return true
                }
                return entries
            }
        }
    }

    static func bytes(of name: String, in store: DataStore) throws -> (records: Int, indexes: [Int]) {
        let collection = try #require(try store.statistics().collections.first { $0.name == name })
        return (collection.bytes, collection.indexes.map(\.bytes))
    }

    @Test("compacting keeps every key and value byte for byte and takes fewer pages")
    func keepsEveryByte() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let notes = try await Self.notes(temporary.store)
        try await Self.fillInRandomOrder(notes, count: 3_000)
        let before = try Self.entries(of: notes.storage, in: temporary.store)
        let bytesBefore = try Self.bytes(of: "Note", in: temporary.store)

        try await temporary.store.compact(collection: "Note")

        #expect(try Self.entries(of: notes.storage, in: temporary.store) == before)
        let bytesAfter = try Self.bytes(of: "Note", in: temporary.store)
        // Random inserts leave pages about two-thirds full; appended in key order they fill.
        #expect(Double(bytesAfter.records) < 0.8 * Double(bytesBefore.records))
        for (after, before) in zip(bytesAfter.indexes, bytesBefore.indexes) {
            #expect(Double(after) < 0.8 * Double(before))
        }
        try expectConsistent(temporary.store)
        let sample = try #require(
            try await notes.query(params: ["created_ts >=": 500_000.0], options: ["limit": 5]).first)
        #expect(try await notes.get(id: .string(try #require(sample.id))) == sample)
    }

    @Test("a compaction records no change, refreshes no observation, and keeps contexts' snapshots and versions valid")
    func invisibleToFeedAndContexts() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let notes = try await Self.notes(temporary.store)
        try await Self.fillInRandomOrder(notes, count: 400)
        _ = try await notes.add(object: note("kept", message: "before"))
        let feed = try temporary.store.changes(after: CommitID(rawValue: try temporary.store.changeLog.lastCommit()))

        var observed = try notes.observe(params: ["message": "after"], options: nil).makeAsyncIterator()
        #expect(try await observed.next()?.isEmpty == true)
        let reader = temporary.store.newContext()
        let seen = try reader.get(id: "kept", from: notes)
        try await temporary.store.compact(collection: "Note")
        // The snapshot taken before reads on, and the version it read is still current.
        #expect(try reader.get(id: "kept", from: notes) == seen)
        _ = try reader.put(id: "kept", object: note("kept", message: "after"), in: notes)
        let saved = try #require(try await reader.save())

        let events = try await ChangeFeedTests.collect(feed, count: 1)
        #expect(events.map(\.commit) == [saved])
        #expect(events.first?.changes.first?.updated == [.string("kept")])
        #expect(try await notes.get(id: "kept").message == "after")
        // The observation's next results are the save's: the compaction refreshed nothing.
        #expect(try await observed.next()?.map(\.id) == ["kept"])
        try expectConsistent(temporary.store)
    }

    @Test("saves made while a collection is compacted all land, and the indexes agree with the records")
    func concurrentSaves() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let notes = try await Self.notes(temporary.store)
        try await Self.fillInRandomOrder(notes, count: 1_000)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for saver in 0..<4 {
                group.addTask {
                    for number in 0..<50 { _ = try await notes.add(object: note("s\(saver)-\(number)")) }
                }
            }
            group.addTask { try await temporary.store.compact(collection: "Note") }
            try await group.waitForAll()
        }
        #expect(try notes.count() == 1_200)
        try expectConsistent(temporary.store)
    }

    @Test("in a full map that may not grow, compacting fails with storage and changes no byte")
    func fullMapChangesNothing() async throws {
        let temporary = try TemporaryStore(
            options: .init(mapSize: 256 * 1024, writerLimits: .init(maxMapSize: 256 * 1024)))
        defer { temporary.remove() }
        let notes = try await temporary.store.collection(
            Note.self, idField: "id", indexes: [IndexDefinition("created_ts")])
        var before: [[[UInt8]]] = []
        var compactError: DataStoreError?
        _ = try await fillMap(of: temporary.store, with: notes) {
            before = try Self.entries(of: notes.storage, in: temporary.store)
            compactError = await #expect(throws: DataStoreError.self) {
                try await temporary.store.compact(collection: "Note")
            }
        }
        #expect(compactError?.code == .storage, "\(String(describing: compactError))")
        #expect(try Self.entries(of: notes.storage, in: temporary.store) == before)
        try expectConsistent(temporary.store)
    }

    @Test("compactions between the steps of an index build from a snapshot leave it exactly the entries writes make")
    func compactionsDuringIndexBuild() async throws {
        let fast = DataStore.Options(durability: .none)
        let (built, reference) = (try TemporaryStore(options: fast), try TemporaryStore(options: fast))
        defer {
            built.remove()
            reference.remove()
        }
        let plain = try await IndexBuildTests.collection(built.store, indexes: [])
        _ = try await plain.add(contentsOf: IndexBuildTests.documents(120))
        let round = Atomic<Int>(0)
        built.store.indexBuildSettings.withLock { settings in
            settings.batchBytes = 1_024
            settings.pause = { _ in
                try await IndexBuildTests.writeRound(round.add(1, ordering: .relaxed).oldValue, to: plain)
                try await built.store.compact(collection: "docs")
            }
        }
        let later = try await IndexBuildTests.collection(built.store, indexes: IndexBuildTests.definitions)
        #expect(later.storage.indexes.allSatisfy { $0.state == .ready && $0.buildLog == nil })
        #expect(round.load(ordering: .relaxed) > IndexBuildTests.definitions.count * 3)
        try expectConsistent(built.store)

        let declared = try await IndexBuildTests.collection(reference.store, indexes: IndexBuildTests.definitions)
        _ = try await declared.add(contentsOf: try await later.query(params: nil, options: nil))
        let expected = try IndexBuildTests.entries(reference.store, declared)
        let found = try IndexBuildTests.entries(built.store, later)
        for name in expected.keys.sorted() { #expect(found[name] == expected[name], "index \(name)") }
    }

    @Test("compacting an unknown collection is a named notFound, and an empty one is a no-op")
    func unknownAndEmpty() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let notes = try await Self.notes(temporary.store)
        await #expect {
            try await temporary.store.compact(collection: "Missing")
        } throws: { error in
            (error as? DataStoreError)?.code == .notFound && "\(error)".contains("Missing")
        }
        try await temporary.store.compact(collection: "Note")
        #expect(try notes.count() == 0)
        try expectConsistent(temporary.store)
    }
}
