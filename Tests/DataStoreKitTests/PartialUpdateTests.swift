import DataStoreCore
import DataStoreKit
import Foundation
import Testing

@Suite("Partial update: update(id:set:unset:)")
struct PartialUpdateTests {
    /// A record with many counters, each updated by its own task.
    struct Counters: Codable, Equatable, Sendable {
        var id: String
        var fields: [String: Int]

        init(id: String, fields: [String: Int]) {
            self.id = id
            self.fields = fields
        }
    }

    @Test("concurrent updates of different fields of one record all land")
    func concurrentUpdatesAllLand() async throws {
        let temporary = try TemporaryStore(options: DataStore.Options(durability: .none))
        defer { temporary.remove() }
        let notes = try await temporary.store.collection(
            "notes", mapping: ObjectMapping<Document>(idField: "id", encode: { $0 }, decode: { $0 }),
            indexes: [IndexDefinition("f7")])
        _ = try await notes.add(object: ["id": "one", "message": "start"])
        let fields = 64
        try await withThrowingTaskGroup(of: Void.self) { group in
            for field in 0..<fields {
                group.addTask { _ = try await notes.update(id: "one", set: ["f\(field)": .int(Int64(field))]) }
            }
            try await group.waitForAll()
        }
        let stored = try await notes.get(id: "one")
        for field in 0..<fields { #expect(stored["f\(field)"] == .int(Int64(field)), "field f\(field) was lost") }
        #expect(stored["message"] == "start")
        #expect(try await notes.query(params: ["f7": 7], options: nil).count == 1)
        try expectConsistent(temporary.store)
    }

    @Test("an update moves the record's index entries")
    func updateMaintainsIndexes() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let notes = try await temporary.store.collection(
            Note.self, idField: "id", indexes: [IndexDefinition("type"), IndexDefinition("tags", multiValue: true)])
        _ = try await notes.add(object: note("n1", type: "text", tags: ["a", "b"]))
        let updated = try await notes.update(id: "n1", set: ["type": "image", "tags": ["c"]])
        #expect(updated.type == "image" && updated.tags == ["c"])
        #expect(try await notes.query(params: ["type": "text"], options: nil).isEmpty)
        #expect(try await notes.query(params: ["type": "image"], options: nil).map(\.id) == ["n1"])
        #expect(try await notes.query(params: ["tags": "a"], options: nil).isEmpty)
        #expect(try await notes.query(params: ["tags": "c"], options: nil).map(\.id) == ["n1"])
        _ = try await notes.update(id: "n1", unset: ["tags"])
        #expect(try await notes.get(id: "n1").tags == nil)
        try expectConsistent(temporary.store)
    }

    @Test("a result that no longer decodes as the type is invalidValue, and nothing is written")
    func undecodableResultIsRefused() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let notes = try await temporary.store.collection(Note.self, idField: "id")
        let original = note("n1")
        _ = try await notes.add(object: original)
        let wrongType = await #expect(throws: DataStoreError.self) {
            try await notes.update(id: "n1", set: ["created_ts": "yesterday"])
        }
        #expect(wrongType?.code == .invalidValue)
        #expect(wrongType?.message.contains("Note/\"n1\"") == true, "\(String(describing: wrongType))")
        let required = await #expect(throws: DataStoreError.self) {
            try await notes.update(id: "n1", unset: ["message"])
        }
        #expect(required?.code == .invalidValue)
        #expect(try await notes.get(id: "n1") == original.withID("n1"))
    }

    @Test("a unique index refuses an update to another record's value; an absent id is notFound")
    func uniqueAndMissing() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let notes = try await temporary.store.collection(
            Note.self, idField: "id", indexes: [IndexDefinition("message", unique: true)])
        _ = try await notes.add(object: note("n1", message: "one"))
        _ = try await notes.add(object: note("n2", message: "two"))
        let clash = await #expect(throws: DataStoreError.self) {
            try await notes.update(id: "n2", set: ["message": "one"])
        }
        #expect(clash?.code == .uniqueViolation)
        #expect(try await notes.get(id: "n2").message == "two")
        let missing = await #expect(throws: DataStoreError.self) {
            try await notes.update(id: "n9", set: ["type": "x"])
        }
        #expect(missing?.code == .notFound)
        #expect(missing?.message.contains("n9") == true)
        #expect(try notes.count() == 2)
        try expectConsistent(temporary.store)
    }

    @Test("observers see an update as an update of its id")
    func updateIsReported() async throws {
        let store = try DataStore.inMemory()
        let notes = try await store.collection(Note.self, idField: "id")
        _ = try await notes.add(object: note("n1"))
        var events = store.changes().makeAsyncIterator()
        _ = try await notes.update(id: "n1", set: ["type": "image"])
        let event = try #require(await events.next())
        var expected = CollectionChanges(collection: "Note")
        expected.updated = ["n1"]
        #expect(event.changes == [expected])
    }

    @Test("a context stages an update, reads it, and its save conflicts when the record changed underneath")
    func contextUpdate() async throws {
        let store = try DataStore.inMemory()
        let notes = try await store.collection(Note.self, idField: "id")
        _ = try await notes.add(object: note("n1", type: "text", message: "hello"))
        let context = store.newContext()
        let staged = try context.update(id: "n1", set: ["type": "image"], in: notes)
        #expect(staged.type == "image" && staged.message == "hello")
        #expect(try context.get(id: "n1", from: notes).type == "image")
        #expect(try await notes.get(id: "n1").type == "text")
        try await context.save()
        #expect(try await notes.get(id: "n1").type == "image")

        let late = store.newContext()
        _ = try late.update(id: "n1", set: ["message": "late"], in: notes)
        _ = try await notes.update(id: "n1", set: ["type": "video"])
        let conflict = await #expect(throws: DataStoreError.self) { try await late.save() }
        #expect(conflict?.code == .conflict)
        let missing = #expect(throws: DataStoreError.self) {
            try context.update(id: "n9", set: ["type": "x"], in: notes)
        }
        #expect(missing?.code == .notFound)
        let touchesID = #expect(throws: DataStoreError.self) {
            try context.update(id: "n1", set: ["id": "n2"], in: notes)
        }
        #expect(touchesID?.code == .invalidValue)
    }
}

extension Note {
    /// The note with `id` set.
    func withID(_ id: String) -> Note {
        var copy = self
        copy.id = id
        return copy
    }
}
