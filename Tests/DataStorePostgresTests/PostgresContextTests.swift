import DataStoreCore
import DataStoreKit
import Foundation
import ModelConformance
import Testing

@testable import DataStorePostgres

/// A note, as the LMDB store's context tests store it.
struct Note: Codable, Equatable, Sendable {
    var id: String?
    var from_user_key: String = "u1"
    var message: String = "hello"
    var created_ts: Double = 1_437_108_600
}

func note(_ id: String?, from: String = "u1", ts: Double = 1_437_108_600, message: String = "hello") -> Note {
    Note(id: id, from_user_key: from, message: message, created_ts: ts)
}

/// The LMDB store's context scenarios (Tests/DataStoreKitTests/ContextTests.swift), against
/// PostgreSQL: staged reads over one `REPEATABLE READ` snapshot, child contexts, conflicts.
@Suite("PostgreSQL contexts", .enabled(if: PostgresTestServer.isConfigured, PostgresTestServer.skipReason))
struct PostgresContextTests {
    static func notes(_ indexes: [IndexDefinition] = []) async throws -> PostgresCollection<Note> {
        let store = try await PostgresTestServer.sharedStore()
        return try await store.collection(
            Note.self, name: PostgresTestServer.uniqueName("Note"), idField: "id", indexes: indexes)
    }

    @Test("a context reads its own staged changes; the store sees them only after save")
    func stagedReads() async throws {
        let notes = try await Self.notes([IndexDefinition("created_ts")])
        _ = try await notes.add(object: note("old", ts: 1))
        let context = notes.store.newContext()
        try context.add(note("new", ts: 5), to: notes)
        try context.put(id: "old", object: note("old", ts: 9, message: "changed"), in: notes)
        #expect(try context.get(id: "new", from: notes).created_ts == 5)
        #expect(try context.get(id: "old", from: notes).message == "changed")
        #expect(try context.query(notes, params: ["created_ts >=": 5]).compactMap(\.id).sorted() == ["new", "old"])
        #expect(
            try context.query(notes, params: nil, options: ["sort": ["-created_ts"], "limit": 1]).map(\.id) == ["old"])
        await #expect(throws: DataStoreError.self) { try await notes.get(id: "new") }
        #expect(try await notes.get(id: "old").message == "hello")

        let commit = try await context.save()
        #expect(commit != nil)
        #expect(try await notes.get(id: "new").created_ts == 5)
        #expect(try await notes.get(id: "old").message == "changed")
        #expect(!context.hasChanges)
    }

    @Test("staged removes hide records from gets and queries; add then remove stages nothing")
    func removes() async throws {
        let notes = try await Self.notes()
        _ = try await notes.add(object: note("a"))
        let context = notes.store.newContext()
        try context.remove(id: "a", from: notes)
        #expect(throws: DataStoreError.self) { try context.get(id: "a", from: notes) }
        #expect(try context.query(notes, params: ["from_user_key": "u1"]).isEmpty)
        let missing = #expect(throws: DataStoreError.self) { try context.remove(id: "a", from: notes) }
        #expect(missing?.code == .notFound)
        try context.add(note("b"), to: notes)
        try context.remove(id: "b", from: notes)
        let duplicate = #expect(throws: DataStoreError.self) {
            try context.add(note("c"), to: notes)
            try context.add(note("c"), to: notes)
        }
        #expect(duplicate?.code == .duplicateID)
        try await context.save()
        #expect(try await notes.all().map(\.id) == ["c"])
    }

    @Test("a child saves into its parent, and only the root's save reaches the server")
    func childToParentToServer() async throws {
        let notes = try await Self.notes()
        let parent = notes.store.newContext()
        let child = parent.newChild()
        try child.add(note("from-child"), to: notes)
        #expect(throws: DataStoreError.self) { try parent.get(id: "from-child", from: notes) }
        #expect(try await child.save() == nil)
        #expect(try parent.get(id: "from-child", from: notes).id == "from-child")
        #expect(try await notes.count(Query()) == 0)
        let grandchild = parent.newChild().newChild()
        #expect(try grandchild.get(id: "from-child", from: notes).id == "from-child")
        try await parent.save()
        #expect(try await notes.count(Query()) == 1)
    }

    @Test("while a save is committing, staging and saving a child into the context are named conflicts")
    func stagingDuringSave() async throws {
        let notes = try await Self.notes()
        let context = notes.store.newContext()
        try context.add(note("a"), to: notes)
        let child = context.newChild()
        try child.add(note("b"), to: notes)
        context.state.withLock { $0.work.saving = true }
        let staging = #expect(throws: DataStoreError.self) { try context.add(note("c"), to: notes) }
        #expect(staging?.code == .conflict)
        #expect(staging?.message.contains("/\"c\"") == true)
        await #expect(throws: DataStoreError.self) { try await child.save() }
        await #expect(throws: DataStoreError.self) { try await context.save() }
        #expect(child.hasChanges)
        context.state.withLock { $0.work.saving = false }
        try await child.save()
        try await context.save()
        #expect(try await notes.all().compactMap(\.id).sorted() == ["a", "b"])
    }

    @Test("discard drops staged changes and the snapshot")
    func discard() async throws {
        let notes = try await Self.notes()
        let context = notes.store.newContext()
        try context.add(note("x"), to: notes)
        context.discard()
        #expect(!context.hasChanges)
        #expect(context.state.withLock { $0.snapshot == nil })
        try await context.save()
        #expect(try await notes.count(Query()) == 0)
    }

    @Test("a record changed underneath a context makes its save fail as a conflict naming it, writing nothing")
    func conflictDetected() async throws {
        let notes = try await Self.notes()
        _ = try await notes.add(object: note("shared", message: "v1"))
        let context = notes.store.newContext()
        _ = try context.get(id: "shared", from: notes)
        try context.put(id: "shared", object: note("shared", message: "mine"), in: notes)
        try context.add(note("other"), to: notes)
        _ = try await notes.put(id: "shared", object: note("shared", message: "theirs"))

        let error = await #expect(throws: DataStoreError.self) { try await context.save() }
        #expect(error?.code == .conflict)
        #expect(error?.message.contains("/\"shared\" (read version") == true, "\(String(describing: error))")
        #expect(error?.message.contains("other") == false)
        #expect(try await notes.get(id: "shared").message == "theirs")
        await #expect(throws: DataStoreError.self) { try await notes.get(id: "other") }
        #expect(context.hasChanges)
        let second = notes.store.newContext()
        try second.add(note("mine-only"), to: notes)
        _ = try await notes.add(object: note("unrelated"))
        try await second.save()
        #expect(try await notes.get(id: "mine-only").id == "mine-only")
    }

    @Test("a record only read, then changed underneath, is a conflict; then removed underneath, too")
    func readOnlyRecordChecked() async throws {
        let notes = try await Self.notes()
        _ = try await notes.add(object: note("read"))
        _ = try await notes.add(object: note("gone"))
        let context = notes.store.newContext()
        _ = try context.query(notes, params: nil)
        try context.add(note("new"), to: notes)
        _ = try await notes.remove(id: "gone")
        let error = await #expect(throws: DataStoreError.self) { try await context.save() }
        #expect(error?.code == .conflict)
        #expect(
            error?.message.contains("/\"gone\" (read version") == true && error?.message.contains("now absent") == true)
        #expect(error?.message.contains("\"read\"") == false)
        await #expect(throws: DataStoreError.self) { try await notes.get(id: "new") }
    }

    @Test("an id inserted underneath a context that inserts it too is a conflict, not a duplicate id")
    func insertedUnderneathIsConflict() async throws {
        let notes = try await Self.notes()
        let context = notes.store.newContext()
        try context.add(note("both", message: "mine"), to: notes)
        try context.add(note("alone"), to: notes)
        _ = try await notes.add(object: note("both", message: "theirs"))

        let error = await #expect(throws: DataStoreError.self) { try await context.save() }
        #expect(error?.code == .conflict)
        #expect(error?.message.contains("/\"both\" (read absent, now version") == true)
        #expect(error?.message.contains("alone") == false)
        #expect(try await notes.get(id: "both").message == "theirs")
        await #expect(throws: DataStoreError.self) { try await notes.get(id: "alone") }
    }

    @Test("a conflict outranks the error of a step that failed before it, and names only records changed underneath")
    func conflictOutranksEarlierStepError() async throws {
        let notes = try await Self.notes([IndexDefinition("from_user_key", unique: true)])
        _ = try await notes.add(object: note("taken", from: "alice"))
        let context = notes.store.newContext()
        try context.add(note("clash", from: "alice"), to: notes)
        try context.add(note("later", from: "bob"), to: notes)
        _ = try await notes.add(object: note("later", from: "carol"))

        let error = await #expect(throws: DataStoreError.self) { try await context.save() }
        #expect(error?.code == .conflict)
        #expect(error?.message.contains("/\"later\" (read absent, now version") == true)
        #expect(error?.message.contains("clash") == false)
        await #expect(throws: DataStoreError.self) { try await notes.get(id: "clash") }
        #expect(try await notes.get(id: "later").from_user_key == "carol")
    }

    @Test("with nothing changed underneath, a failing insert fails with its own error and writes nothing")
    func failingInsertKeepsItsError() async throws {
        let notes = try await Self.notes([IndexDefinition("from_user_key", unique: true)])
        _ = try await notes.add(object: note("taken", from: "alice"))
        let context = notes.store.newContext()
        try context.add(note("first", from: "bob"), to: notes)
        try context.add(note("clash", from: "alice"), to: notes)
        try context.add(note("last", from: "dave"), to: notes)

        let error = await #expect(throws: DataStoreError.self) { try await context.save() }
        #expect(error?.code == .uniqueViolation)
        #expect(try await notes.all().map(\.id) == ["taken"])
    }

    @Test("a last-writer-wins context saves over a concurrent change, and a removal of what is gone holds")
    func lastWriterWins() async throws {
        let notes = try await Self.notes()
        _ = try await notes.add(object: note("shared", message: "v1"))
        _ = try await notes.add(object: note("doomed"))
        let context = notes.store.newContext(policy: .lastWriterWins)
        try context.put(id: "shared", object: note("shared", message: "mine"), in: notes)
        try context.remove(id: "doomed", from: notes)
        _ = try await notes.put(id: "shared", object: note("shared", message: "theirs"))
        _ = try await notes.remove(id: "doomed")
        try await context.save()
        #expect(try await notes.get(id: "shared").message == "mine")
        #expect(try await notes.all().map(\.id) == ["shared"])
    }

    @Test("a context's reads come from one snapshot, until refresh()")
    func snapshotIsolation() async throws {
        let notes = try await Self.notes()
        _ = try await notes.add(object: note("a", message: "before"))
        let context = notes.store.newContext()
        #expect(try context.get(id: "a", from: notes).message == "before")
        _ = try await notes.put(id: "a", object: note("a", message: "after"))
        _ = try await notes.add(object: note("b"))
        #expect(try context.get(id: "a", from: notes).message == "before")
        #expect(throws: DataStoreError.self) { try context.get(id: "b", from: notes) }
        #expect(try context.query(notes, params: nil).map(\.id) == ["a"])
        context.refresh()
        #expect(try context.get(id: "a", from: notes).message == "after")
    }

    @Test("a partial update in a context merges over its view and detects a change underneath")
    func partialUpdate() async throws {
        let notes = try await Self.notes()
        _ = try await notes.add(object: note("u", message: "v1"))
        let context = notes.store.newContext()
        let updated = try context.update(id: "u", set: ["message": "v2"], in: notes)
        #expect(updated.message == "v2" && updated.from_user_key == "u1")
        try await context.save()
        #expect(try await notes.get(id: "u").message == "v2")
        let stale = notes.store.newContext()
        _ = try stale.update(id: "u", set: ["from_user_key": "u9"], in: notes)
        _ = try await notes.put(id: "u", object: note("u", message: "v3"))
        await #expect(throws: DataStoreError.self) { try await stale.save() }
        #expect(try await notes.get(id: "u").from_user_key == "u1")
    }
}

/// The shared ModelProtocol battery against a PostgreSQL context's view, as the LMDB store's
/// contexts run it: staged writes, reads of them, and a save that commits what is left.
@Suite(
    "ModelProtocol conformance: a PostgreSQL context's view",
    .enabled(if: PostgresTestServer.isConfigured, PostgresTestServer.skipReason))
struct PostgresContextConformanceTests {
    @Test(arguments: ModelConformance.scenarios)
    func conforms(_ scenario: Scenario) async throws {
        let store = try await PostgresTestServer.sharedStore()
        let messages = try await store.collection(
            ConformanceMessage.self, name: PostgresTestServer.uniqueName("Message"),
            indexes: [IndexDefinition("created_ts")])
        let context = store.newContext()
        let view = context.collection(messages)
        try await scenario.run(view)
        let seen = try await view.all()
        try await context.save()
        #expect(ModelConformance.ids(try await messages.all()) == ModelConformance.ids(seen))
    }
}
