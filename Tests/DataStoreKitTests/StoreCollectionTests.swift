import DataStoreCore
import Foundation
import Testing
@testable import DataStoreKit

@Suite("Store collections")
struct StoreCollectionTests {
    @Test("add, get, put, remove, all")
    func basics() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let notes = try await temporary.store.collection(Note.self, idField: "id")
        let added = try await notes.add(object: note("n1"))
        #expect(added == note("n1"))
        #expect(try await notes.get(id: "n1") == note("n1"))
        var changed = note("n1", message: "changed")
        changed = try await notes.put(id: "n1", object: changed)
        #expect(try await notes.get(id: "n1").message == "changed")
        _ = try await notes.put(id: "n2", object: note(nil)) // put inserts when absent
        #expect(try await notes.get(id: "n2").id == "n2")
        #expect(try await notes.all().map(\.id) == ["n1", "n2"])
        let removed = try await notes.remove(id: "n1")
        #expect(removed.message == "changed")
        #expect(try notes.count() == 1)
        try expectConsistent(temporary.store)
    }

    @Test("missing ids and duplicate ids are named errors that write nothing")
    func namedErrors() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let notes = try await temporary.store.collection(Note.self, idField: "id")
        _ = try await notes.add(object: note("n1", message: "first"))
        let duplicate = await #expect(throws: DataStoreError.self) {
            try await notes.add(object: note("n1", message: "second"))
        }
        #expect(duplicate?.code == .duplicateID)
        #expect(duplicate?.message.contains("n1") == true)
        #expect(try await notes.get(id: "n1").message == "first")

        let missing = await #expect(throws: DataStoreError.self) { try await notes.get(id: "nope") }
        #expect(missing?.code == .notFound)
        #expect(missing?.message.contains("nope") == true)
        let notRemoved = await #expect(throws: DataStoreError.self) { try await notes.remove(id: "nope") }
        #expect(notRemoved?.code == .notFound)

        let badID = await #expect(throws: DataStoreError.self) { try await notes.get(id: .double(1.5)) }
        #expect(badID?.code == .invalidID)
        let emptyID = await #expect(throws: DataStoreError.self) { try await notes.put(id: "", object: note(nil)) }
        #expect(emptyID?.code == .invalidID)
        let longID = await #expect(throws: DataStoreError.self) {
            try await notes.put(id: .string(String(repeating: "x", count: 200)), object: note(nil))
        }
        #expect(longID?.code == .invalidID)
        #expect(try notes.count() == 1)
    }

    @Test("add without an id generates unique, time-ordered ids")
    func generatedIDs() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let notes = try await temporary.store.collection(Note.self, idField: "id")
        var ids: [String] = []
        for index in 0..<20 { ids.append(try await notes.add(object: note(nil, ts: Double(index))).id ?? "") }
        #expect(Set(ids).count == 20)
        #expect(ids.allSatisfy { $0.count == 26 })
        #expect(ids == ids.sorted())
        #expect(try await notes.all().map(\.id) == ids)
    }

    @Test("integer ids are ids too, and 1.0 finds 1")
    func integerIDs() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        struct Counter: Codable, Equatable {
            var id: Int
            var count: Int
        }
        let counters = try await temporary.store.collection(Counter.self, idField: "id")
        _ = try await counters.add(object: Counter(id: 10, count: 1))
        _ = try await counters.add(object: Counter(id: 2, count: 2))
        #expect(try await counters.get(id: 10) == Counter(id: 10, count: 1))
        #expect(try await counters.get(id: .double(2.0)) == Counter(id: 2, count: 2))
        #expect(try await counters.all().map(\.id) == [2, 10])
    }

    @Test("data survives closing and reopening the store")
    func persistence() async throws {
        let path = NSTemporaryDirectory() + "datastorekit-reopen-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: path) }
        do {
            let store = try DataStore.open(path: path)
            let notes = try await store.collection(Note.self, idField: "id", indexes: [IndexDefinition("created_ts")])
            for index in 0..<10 { _ = try await notes.add(object: note("n\(index)", ts: Double(index))) }
            store.close()
        }
        // Wait for the first store to be released, then reopen.
        let store = try DataStore.open(path: path)
        let notes = try await store.collection(Note.self, idField: "id", indexes: [IndexDefinition("created_ts")])
        #expect(try notes.count() == 10)
        #expect(try await notes.query(params: ["created_ts >=": 7], options: nil).count == 3)
        try expectConsistent(store)
    }

    @Test("opening a path again after close() gives a working store, even while the closed one lives")
    func reopenWhileClosedStoreLives() async throws {
        let path = NSTemporaryDirectory() + "datastorekit-reopen-live-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let first = try DataStore.open(path: path)
        let firstNotes = try await first.collection(Note.self, idField: "id")
        _ = try await firstNotes.add(object: note("n1"))
        #expect(try DataStore.open(path: path) === first)
        first.close()
        await #expect(throws: DataStoreError.self) { _ = try await firstNotes.add(object: note("n2")) }

        let second = try DataStore.open(path: path)
        #expect(second !== first)
        let notes = try await second.collection(Note.self, idField: "id")
        _ = try await notes.add(object: note("n2"))
        #expect(try notes.count() == 2)
        #expect(try firstNotes.count() == 2) // the closed store still reads
        second.close()
    }

    @Test("past maxDatabases, declaring a collection is a named error and the store goes on")
    func maxDatabasesReached() async throws {
        // Four named databases: _meta, _changes, the records of `notes`, its index.
        let temporary = try TemporaryStore(options: DataStore.Options(maxDatabases: 4))
        defer { temporary.remove() }
        let notes = try await temporary.store.collection(
            Note.self, idField: "id", indexes: [IndexDefinition("created_ts")])
        _ = try await notes.add(object: note("n1"))
        do {
            _ = try await temporary.store.collection(Note.self, name: "Other", idField: "id")
            Issue.record("a fifth database opened past maxDatabases = 4")
        } catch let error as DataStoreError {
            #expect(error.code == .storage)
            #expect(error.message.contains("maxDatabases = 4"))
            #expect(error.message.contains("Other"))
        }
        #expect(try await notes.get(id: "n1").id == "n1")
        _ = try await notes.add(object: note("n2"))
        #expect(try notes.count() == 2)
    }

    @Test("an in-memory store works and leaves nothing behind")
    func inMemory() async throws {
        var path = ""
        do {
            let store = try DataStore.inMemory()
            path = store.path
            let notes = try await store.collection(Note.self, idField: "id")
            _ = try await notes.add(object: note("n1"))
            #expect(try await notes.get(id: "n1").id == "n1")
            #expect(FileManager.default.fileExists(atPath: path))
        }
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test("the seed's callback forms report exactly once")
    func callbacks() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let notes = try await temporary.store.collection(Note.self, idField: "id")
        _ = try await notes.add(object: note("n1"))
        let (error, found): ((any Error)?, [Note]?) = await withCheckedContinuation { continuation in
            notes.query(params: ["from_user_key": "u1"], options: [:]) { error, results in
                continuation.resume(returning: (error, results))
            }
        }
        #expect(error == nil)
        #expect(found?.map(\.id) == ["n1"])
        let (getError, object): ((any Error)?, Note?) = await withCheckedContinuation { continuation in
            notes.get(id: "missing") { error, object in continuation.resume(returning: (error, object)) }
        }
        #expect((getError as? DataStoreError)?.code == .notFound)
        #expect(object == nil)
    }

    @Test("a store directory that is not a store, or of a newer format, is refused by name")
    func refusedStores() async throws {
        let path = NSTemporaryDirectory() + "datastorekit-newer-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: path) }
        do {
            let store = try DataStore.open(path: path)
            try store.environment.write { transaction in
                let meta = try store.environment.openDatabase(named: "_meta")
                try transaction.put([99], forKey: Array("format".utf8), in: meta)
            }
        }
        let error = #expect(throws: DataStoreError.self) { _ = try DataStore.open(path: path) }
        #expect(error?.code == .unsupportedFormat)
        #expect(error?.message.contains("99") == true)
    }
}

@Suite("Bulk writes")
struct BulkWriteTests {
    @Test("add(contentsOf:) commits all objects as one change set, or none of them")
    func addContentsOf() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let notes = try await temporary.store.collection(
            Note.self, idField: "id", indexes: [IndexDefinition("created_ts")])
        let before = temporary.store.writerMetrics.committedChangeSets
        let ids = try await notes.add(contentsOf: (0..<500).map { note("n\($0)", ts: Double($0)) } + [note(nil)])
        #expect(ids.count == 501)
        #expect(temporary.store.writerMetrics.committedChangeSets == before + 1)
        #expect(try notes.count() == 501)
        let error = await #expect(throws: DataStoreError.self) {
            try await notes.add(contentsOf: [note("fresh"), note("n7")])
        }
        #expect(error?.code == .duplicateID)
        #expect(throws: DataStoreError.self) { try notes.get(id: "fresh") } // nothing of the batch landed
        try await notes.put(contentsOf: [note("n7", ts: 700), note("new", ts: 1)])
        #expect(try await notes.get(id: "n7").created_ts == 700)
        let missingID = await #expect(throws: DataStoreError.self) { try await notes.put(contentsOf: [note(nil)]) }
        #expect(missingID?.code == .invalidID)
        try expectConsistent(temporary.store)
    }
}
