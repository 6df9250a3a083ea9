import DataStoreCore
import DataStoreKit
import Foundation
import Testing

@Suite("Delete by query: remove(params:)")
struct RemoveByQueryTests {
    @Test(
        "removes exactly the matches with their index entries, whatever the plan",
        arguments: [
            ["type": "text"] as [String: Value], // index scan
            ["created_ts >=": 1_000, "type": "text"], // index range plus a filter
            ["message": "m3"], // full scan with a filter
            ["id >=": "n10", "id <": "n20"], // id range
            ["id in": ["n1", "n2", "n999"]], // primary key lookups
            ["tags": "odd"] // multi-value index
        ])
    func removesMatches(_ params: [String: Value]) async throws {
        let temporary = try TemporaryStore(options: DataStore.Options(durability: .none))
        defer { temporary.remove() }
        let notes = try await temporary.store.collection(
            Note.self, idField: "id",
            indexes: [
                IndexDefinition("type"), IndexDefinition("created_ts"), IndexDefinition("tags", multiValue: true)
            ])
        try await notes.add(contentsOf: (0..<60).map(Self.sample))
        let expected = try await notes.query(params: params, options: nil).count
        let removed = try await notes.remove(params: params)
        #expect(removed == expected)
        #expect(try await notes.count(params: params) == 0)
        #expect(try notes.count() == 60 - expected)
        try expectConsistent(temporary.store)
    }

    static func sample(_ number: Int) -> Note {
        let type = number % 3 == 0 ? "text" : "image"
        let tags: [String] = number % 2 == 1 ? ["odd", "x"] : ["even"]
        return note("n\(number)", ts: Double(number * 50), type: type, message: "m\(number % 7)", tags: tags)
    }

    @Test("a large delete is one change set: one commit, every id reported once")
    func largeDeleteIsOneChangeSet() async throws {
        let temporary = try TemporaryStore(options: DataStore.Options(durability: .none))
        defer { temporary.remove() }
        let notes = try await temporary.store.collection(Note.self, idField: "id", indexes: [IndexDefinition("type")])
        try await notes.add(contentsOf: (0..<8_000).map { note("n\($0)", type: $0 % 2 == 0 ? "even" : "odd") })
        var events = temporary.store.changes().makeAsyncIterator()
        let before = temporary.store.writerMetrics.committedChangeSets
        #expect(try await notes.remove(params: ["type": "odd"]) == 4_000)
        #expect(temporary.store.writerMetrics.committedChangeSets == before + 1)
        let event = try #require(await events.next())
        #expect(event.changes.first?.removed.count == 4_000)
        #expect(Set(event.changes.first?.removed ?? []).count == 4_000)
        #expect(try notes.count() == 4_000)
        #expect(try await notes.count(params: ["type": "even"]) == 4_000)
        try expectConsistent(temporary.store)
    }

    @Test("a bad key is invalidQuery and removes nothing; no match removes nothing and reports no change")
    func badAndEmpty() async throws {
        let store = try DataStore.inMemory()
        let notes = try await store.collection(Note.self, idField: "id")
        _ = try await notes.add(object: note("n1"))
        let bad = await #expect(throws: DataStoreError.self) { try await notes.remove(params: ["type ~": "x"]) }
        #expect(bad?.code == .invalidQuery)
        #expect(try await notes.remove(params: ["type": "nothing"]) == 0)
        #expect(try notes.count() == 1)
    }

    @Test("a context stages removing its view's matches, staged inserts included")
    func contextRemovesMatches() async throws {
        let store = try DataStore.inMemory()
        let notes = try await store.collection(Note.self, idField: "id")
        try await notes.add(contentsOf: [note("n1", type: "a"), note("n2", type: "b"), note("n3", type: "a")])
        let context = store.newContext()
        try context.add(note("n4", type: "a"), to: notes)
        #expect(try context.remove(params: ["type": "a"], from: notes) == 3)
        #expect(try context.query(notes, params: nil).map(\.id) == ["n2"])
        #expect(try notes.count() == 3)
        try await context.save()
        #expect(try await notes.all().map(\.id) == ["n2"])
        try expectConsistent(store)
    }
}
