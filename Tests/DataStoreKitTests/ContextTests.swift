import DataStoreCore
import Foundation
import Testing
@testable import DataStoreKit

@Suite("Contexts")
struct ContextTests {
    @Test("a context reads its own staged changes; the store sees them only after save")
    func stagedReads() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let notes = try await temporary.store.collection(
            Note.self, idField: "id", indexes: [IndexDefinition("created_ts")])
        _ = try await notes.add(object: note("old", ts: 1))
        let context = temporary.store.newContext()
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
        try expectConsistent(temporary.store)
    }

    @Test("staged removes hide records from gets and queries; add then remove stages nothing")
    func removes() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let notes = try await temporary.store.collection(Note.self, idField: "id")
        _ = try await notes.add(object: note("a"))
        let context = temporary.store.newContext()
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

    @Test("a child saves into its parent, and only the root's save reaches disk")
    func childToParentToDisk() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let notes = try await temporary.store.collection(Note.self, idField: "id")
        let parent = temporary.store.newContext()
        let child = parent.newChild()
        try child.add(note("from-child"), to: notes)
        #expect(throws: DataStoreError.self) { try parent.get(id: "from-child", from: notes) }
        #expect(try await child.save() == nil)
        #expect(try parent.get(id: "from-child", from: notes).id == "from-child")
        #expect(try notes.count() == 0)
        let grandchild = parent.newChild().newChild()
        #expect(try grandchild.get(id: "from-child", from: notes).id == "from-child") // reads through the chain
        try await parent.save()
        #expect(try notes.count() == 1)
    }

    @Test(
        "while a save is committing, staging and saving a child into the context are named conflicts that lose nothing")
    func stagingDuringSave() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let notes = try await temporary.store.collection(Note.self, idField: "id")
        let context = temporary.store.newContext()
        try context.add(note("a"), to: notes)
        let child = context.newChild()
        try child.add(note("b"), to: notes)
        // As `save()` marks the context while its change set is with the writer.
        context.state.withLock { $0.work.saving = true }
        do {
            try context.add(note("c"), to: notes)
            Issue.record("staging during a save was accepted")
        } catch let error as DataStoreError {
            #expect(error.code == .conflict)
            #expect(error.message.contains("Note/\"c\""))
        }
        await #expect(throws: DataStoreError.self) { try await child.save() }
        await #expect(throws: DataStoreError.self) { try await context.save() } // a second save at once
        #expect(child.hasChanges) // the child kept its change
        context.state.withLock { $0.work.saving = false }

        try await child.save()
        try await context.save()
        #expect(try await notes.all().compactMap(\.id).sorted() == ["a", "b"])
        #expect(!context.hasChanges)
    }

    @Test("a discard during a save keeps the context closed to staging until the save ends, then it stages afresh")
    func discardDuringSave() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let notes = try await temporary.store.collection(Note.self, idField: "id")
        let context = temporary.store.newContext()
        try context.add(note("k"), to: notes)
        context.state.withLock { $0.work.saving = true } // as `save()` while its change set commits
        context.discard()
        #expect(throws: DataStoreError.self) { try context.add(note("k", message: "again"), to: notes) }
        context.state.withLock { $0.work.saving = false }
        try context.add(note("k", message: "again"), to: notes)
        #expect(context.hasChanges)
        try await context.save()
        #expect(try await notes.get(id: "k").message == "again")
    }

    @Test("discard drops staged changes")
    func discard() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let notes = try await temporary.store.collection(Note.self, idField: "id")
        let context = temporary.store.newContext()
        try context.add(note("x"), to: notes)
        context.discard()
        #expect(!context.hasChanges)
        try await context.save()
        #expect(try notes.count() == 0)
    }

    @Test("a record changed underneath a context makes its save fail as a conflict naming it, writing nothing")
    func conflictDetected() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let notes = try await temporary.store.collection(Note.self, idField: "id")
        _ = try await notes.add(object: note("shared", message: "v1"))
        let context = temporary.store.newContext()
        _ = try context.get(id: "shared", from: notes)
        try context.put(id: "shared", object: note("shared", message: "mine"), in: notes)
        try context.add(note("other"), to: notes)
        _ = try await notes.put(id: "shared", object: note("shared", message: "theirs"))

        let error = await #expect(throws: DataStoreError.self) { try await context.save() }
        #expect(error?.code == .conflict)
        #expect(error?.message.contains("Note/\"shared\" (read version") == true)
        #expect(error?.message.contains("other") == false) // unchanged underneath: not a conflict
        #expect(try await notes.get(id: "shared").message == "theirs")
        #expect(throws: DataStoreError.self) { try notes.get(id: "other") } // nothing of the change set landed
        // Unrelated changes underneath do not conflict.
        let second = temporary.store.newContext()
        try second.add(note("mine-only"), to: notes)
        _ = try await notes.add(object: note("unrelated"))
        try await second.save()
        #expect(try await notes.get(id: "mine-only").id == "mine-only")
    }

    @Test("an id inserted underneath a context that inserts it too is a conflict, not a duplicate id")
    func insertedUnderneathIsConflict() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let notes = try await temporary.store.collection(Note.self, idField: "id")
        let context = temporary.store.newContext()
        try context.add(note("both", message: "mine"), to: notes)
        try context.add(note("alone"), to: notes)
        _ = try await notes.add(object: note("both", message: "theirs"))

        let error = await #expect(throws: DataStoreError.self) { try await context.save() }
        #expect(error?.code == .conflict)
        #expect(error?.message.contains("Note/\"both\" (read absent, now version") == true)
        #expect(error?.message.contains("alone") == false)
        #expect(try await notes.get(id: "both").message == "theirs")
        #expect(throws: DataStoreError.self) { try notes.get(id: "alone") } // nothing of the change set landed
    }

    @Test(
        "a context that only adds holds no snapshot; one begun by a later read still makes an insert underneath a conflict"
    )
    func addsHoldNoSnapshot() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let store = temporary.store
        let notes = try await store.collection(Note.self, idField: "id")
        _ = try await notes.add(object: note("present"))
        let snapshots = { try store.environment.readers().filter { $0.label == "a Context's snapshot" }.count }
        let context = store.newContext()
        try context.add(note("mine"), to: notes)
        #expect(throws: DataStoreError.self) { try context.add(note("present"), to: notes) }
        #expect(try snapshots() == 0, "the adds' checks read the latest commit, holding nothing")
        _ = try await notes.add(object: note("mine", message: "theirs"))
        // A read after the insert underneath begins the snapshot, which holds "theirs"; the
        // context still sees its own add, and its save checks the version the add read.
        #expect(try context.get(id: "present", from: notes).id == "present")
        #expect(try snapshots() == 1)
        #expect(try context.query(notes, params: nil).map(\.message).contains("theirs") == false)
        let error = await #expect(throws: DataStoreError.self) { try await context.save() }
        #expect(error?.code == .conflict)
        #expect(try await notes.get(id: "mine").message == "theirs")
    }

    /// A store whose notes have a unique index on the sender, with one note from `sender`.
    private static func senderTaken(_ sender: String) async throws -> (TemporaryStore, StoreCollection<Note>) {
        let temporary = try TemporaryStore()
        let notes = try await temporary.store.collection(
            Note.self, idField: "id",
            indexes: [IndexDefinition("from_user_key", unique: true)])
        _ = try await notes.add(object: note("taken", from: sender))
        return (temporary, notes)
    }

    @Test("a conflict outranks the error of a step that failed before it, and names only records changed underneath")
    func conflictOutranksEarlierStepError() async throws {
        let (temporary, notes) = try await Self.senderTaken("alice")
        defer { temporary.remove() }
        let context = temporary.store.newContext()
        // Staged in this order: "clash" fails its unique index first (its record is already put
        // by then), then "later" would find the record inserted underneath.
        try context.add(note("clash", from: "alice"), to: notes)
        try context.add(note("later", from: "bob"), to: notes)
        _ = try await notes.add(object: note("later", from: "carol"))

        let error = await #expect(throws: DataStoreError.self) { try await context.save() }
        #expect(error?.code == .conflict)
        #expect(error?.message.contains("Note/\"later\" (read absent, now version") == true)
        // The record "clash" holds only this change set's own write: not a conflict.
        #expect(error?.message.contains("clash") == false)
        #expect(throws: DataStoreError.self) { try notes.get(id: "clash") }
        #expect(try await notes.get(id: "later").from_user_key == "carol")
        try expectConsistent(temporary.store)
    }

    @Test("with nothing changed underneath, a failing insert fails with its own error and writes nothing")
    func failingInsertKeepsItsError() async throws {
        let (temporary, notes) = try await Self.senderTaken("alice")
        defer { temporary.remove() }
        let context = temporary.store.newContext()
        try context.add(note("first", from: "bob"), to: notes)
        try context.add(note("clash", from: "alice"), to: notes)
        try context.add(note("last", from: "dave"), to: notes)

        let error = await #expect(throws: DataStoreError.self) { try await context.save() }
        #expect(error?.code == .uniqueViolation)
        for id in ["first", "clash", "last"] {
            #expect(throws: DataStoreError.self) { try notes.get(id: .string(id)) }
        }
        try expectConsistent(temporary.store)
    }

    @Test("a record changed and another inserted underneath are named together")
    func changedAndInsertedUnderneathNamedTogether() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let notes = try await temporary.store.collection(Note.self, idField: "id")
        _ = try await notes.add(object: note("read", message: "v1"))
        let context = temporary.store.newContext()
        _ = try context.get(id: "read", from: notes)
        try context.add(note("new", message: "mine"), to: notes)
        _ = try await notes.put(id: "read", object: note("read", message: "v2"))
        _ = try await notes.add(object: note("new", message: "theirs"))

        let error = await #expect(throws: DataStoreError.self) { try await context.save() }
        #expect(error?.code == .conflict)
        #expect(error?.message.contains("Note/\"read\" (read version") == true)
        #expect(error?.message.contains("Note/\"new\" (read absent, now version") == true)
        #expect(try await notes.get(id: "new").message == "theirs")
    }

    @Test("a last-writer-wins context saves over a concurrent change")
    func lastWriterWins() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let notes = try await temporary.store.collection(Note.self, idField: "id")
        _ = try await notes.add(object: note("shared", message: "v1"))
        let context = temporary.store.newContext(policy: .lastWriterWins)
        try context.put(id: "shared", object: note("shared", message: "mine"), in: notes)
        _ = try await notes.put(id: "shared", object: note("shared", message: "theirs"))
        try await context.save()
        #expect(try await notes.get(id: "shared").message == "mine")
    }

    @Test("a context's reads come from one snapshot")
    func snapshotIsolation() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let notes = try await temporary.store.collection(Note.self, idField: "id")
        _ = try await notes.add(object: note("a", message: "before"))
        let context = temporary.store.newContext()
        #expect(try context.get(id: "a", from: notes).message == "before")
        _ = try await notes.put(id: "a", object: note("a", message: "after"))
        _ = try await notes.add(object: note("b"))
        #expect(try context.get(id: "a", from: notes).message == "before")
        #expect(throws: DataStoreError.self) { try context.get(id: "b", from: notes) }
        context.refresh()
        #expect(try context.get(id: "a", from: notes).message == "after")
    }
}
