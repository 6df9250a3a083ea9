import DataStoreCore
import Foundation
import Testing
@testable import DataStoreKit

@Suite("Secondary indexes")
struct IndexTests {
    @Test("entries follow inserts, replacements and removals")
    func maintenance() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let notes = try await temporary.store.collection(
            Note.self, idField: "id",
            indexes: [
                IndexDefinition("created_ts"),
                IndexDefinition("pair", fields: ["from_user_key", "to_user_key"]),
                IndexDefinition("tags", multiValue: true)
            ])
        _ = try await notes.add(object: note("a", from: "u1", to: "u2", ts: 1, tags: ["x", "y"]))
        _ = try await notes.add(object: note("b", from: "u1", to: "u3", ts: 2, tags: ["y", "y"]))
        try expectConsistent(temporary.store)
        _ = try await notes.put(id: "a", object: note("a", from: "u9", to: "u2", ts: 5, tags: ["z"]))
        try expectConsistent(temporary.store)
        #expect(try await notes.query(params: ["tags": "x"], options: nil).isEmpty)
        #expect(try await notes.query(params: ["tags": "z"], options: nil).map(\.id) == ["a"])
        #expect(try await notes.query(params: ["tags": "y"], options: nil).map(\.id) == ["b"])
        #expect(
            try await notes.query(params: ["from_user_key": "u1", "to_user_key": "u3"], options: nil).map(\.id) == ["b"]
        )
        _ = try await notes.remove(id: "b")
        try expectConsistent(temporary.store)
        #expect(try await notes.query(params: ["tags": "y"], options: nil).isEmpty)
    }

    @Test("a unique violation is named, names index and value, and writes nothing")
    func uniqueViolation() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        struct User: Codable, Equatable {
            var id: String
            var email: String?
            var name: String
        }
        let users = try await temporary.store.collection(
            User.self, idField: "id", indexes: [IndexDefinition("email", unique: true)])
        _ = try await users.add(object: User(id: "1", email: "a@x", name: "A"))
        let error = await #expect(throws: DataStoreError.self) {
            try await users.add(object: User(id: "2", email: "a@x", name: "B"))
        }
        #expect(error?.code == .uniqueViolation)
        #expect(error?.message.contains("email") == true)
        #expect(error?.message.contains("a@x") == true)
        #expect(try users.count() == 1)
        // Replacing the holder itself is no violation; missing values are not constrained.
        _ = try await users.put(id: "1", object: User(id: "1", email: "a@x", name: "A2"))
        _ = try await users.add(object: User(id: "3", email: nil, name: "C"))
        _ = try await users.add(object: User(id: "4", email: nil, name: "D"))
        try expectConsistent(temporary.store)
    }

    @Test("values past the 511-byte key limit are indexed cut, re-checked, never lost")
    func longValues() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let notes = try await temporary.store.collection(
            Note.self, idField: "id",
            indexes: [
                IndexDefinition("message"), IndexDefinition("unique_message", fields: ["message"], unique: true)
            ])
        let stem = String(repeating: "long text ", count: 100) // 1,000 bytes
        for (index, tail) in ["b", "a", "c"].enumerated() {
            _ = try await notes.add(object: note("n\(index)", message: stem + tail))
        }
        try expectConsistent(temporary.store)
        #expect(try await notes.query(params: ["message": .string(stem + "a")], options: nil).map(\.id) == ["n1"])
        #expect(
            try await notes.query(params: ["message >": .string(stem + "a")], options: nil).compactMap(\.id).sorted()
                == ["n0", "n2"])
        let sorted = try await notes.query(params: ["message >=": .string(stem)], options: ["sort": ["message"]])
        #expect(sorted.map(\.id) == ["n1", "n0", "n2"])
        let descending = try await notes.query(params: nil, options: ["sort": ["-message"], "limit": 2])
        #expect(descending.map(\.id) == ["n2", "n0"])
        let error = await #expect(throws: DataStoreError.self) {
            try await notes.add(object: note("n9", message: stem + "a"))
        }
        #expect(error?.code == .uniqueViolation)
    }

    @Test("an array in a single-value index is a named error naming field and index")
    func arrayInSingleValueIndex() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let notes = try await temporary.store.collection(Note.self, idField: "id", indexes: [IndexDefinition("tags")])
        let error = await #expect(throws: DataStoreError.self) { try await notes.add(object: note("n1", tags: ["a"])) }
        #expect(error?.code == .invalidValue)
        #expect(error?.message.contains("tags") == true)
        #expect(try notes.count() == 0)
    }

    @Test("a newly declared index is built from existing records; one left out is dropped under .drop")
    func buildAndDrop() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let plain = try await temporary.store.collection(Note.self, idField: "id")
        for index in 0..<250 {
            _ = try await plain.add(object: note(String(format: "n%03d", index), ts: Double(index)))
        }
        let batchesBefore = temporary.store.writerMetrics.batches

        let indexed: StoreCollection<Note> = try await temporary.store.collection(
            "Note", mapping: .codable(idField: "id"),
            indexes: [IndexDefinition("created_ts")], indexBuildChunk: 100)
        // Registered with its build log, then filled and marked ready in one commit (the chunk
        // size applies to unique indexes only).
        #expect(temporary.store.writerMetrics.batches - batchesBefore == 2)
        #expect(try indexed.explain(params: ["created_ts >=": 200]).description.contains("index scan of created_ts"))
        #expect(try await indexed.query(params: ["created_ts >=": 200], options: nil).count == 50)
        try expectConsistent(temporary.store)

        let dropped = try await temporary.store.collection(
            Note.self, idField: "id", indexes: [], undeclaredIndexes: .drop)
        #expect(dropped.indexes.isEmpty)
        #expect(try dropped.explain(params: ["created_ts >=": 200]).description.hasPrefix("full scan"))
        #expect(try await dropped.query(params: ["created_ts >=": 200], options: nil).count == 50)
        let databases = try temporary.store.environment.read { transaction in
            try transaction.withCursor(on: temporary.store.environment.openDatabase(named: nil)) { cursor in
                var names: [String] = []
                while let entry = try cursor.move(.next) { names.append(String(decoding: entry.key, as: UTF8.self)) }
                return names
            }
        }
        #expect(!databases.contains("i/Note/created_ts"))
    }

    @Test("reopening with different declarations reconciles the stored indexes")
    func reopenWithOtherIndexes() async throws {
        let path = NSTemporaryDirectory() + "datastorekit-reindex-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: path) }
        do {
            let store = try DataStore.open(path: path)
            let notes = try await store.collection(Note.self, idField: "id", indexes: [IndexDefinition("created_ts")])
            for index in 0..<20 {
                _ = try await notes.add(object: note("n\(index)", from: "u\(index % 3)", ts: Double(index)))
            }
            store.close()
        }
        let store = try DataStore.open(path: path)
        let redeclared = [
            IndexDefinition("created_ts", fields: [.descending("created_ts")]), IndexDefinition("from_user_key")
        ]
        // Redefining an index drops its entries: refused unless the declaration is the whole list.
        let refused = await #expect(throws: DataStoreError.self) {
            _ = try await store.collection(Note.self, idField: "id", indexes: redeclared)
        }
        #expect(refused?.code == .schemaMismatch && refused?.message.contains("created_ts(created_ts desc)") == true)
        #expect(try await store.documentCollection("Note").indexes.map(\.description) == ["created_ts(created_ts)"])
        let notes = try await store.collection(
            Note.self, idField: "id", indexes: redeclared, undeclaredIndexes: .drop)
        #expect(notes.indexes.map(\.description) == ["created_ts(created_ts desc)", "from_user_key(from_user_key)"])
        try expectConsistent(store)
        #expect(try await notes.query(params: ["from_user_key": "u0"], options: nil).count == 7)
        let newest = try await notes.query(
            params: nil, options: ["sort": ["created_ts": ["ascending": false]], "limit": 3])
        #expect(newest.map(\.created_ts) == [19, 18, 17])
        let idMismatch = await #expect(throws: DataStoreError.self) {
            _ = try await store.collection("Note", mapping: ObjectMapping<Note>.codable(idField: "from_user_key"))
        }
        #expect(idMismatch?.code == .schemaMismatch)
    }
}

@Suite("Index builds over existing data")
struct IndexBuildFailureTests {
    @Test("a unique index whose existing records collide is not added, names the index, and changes nothing")
    func uniqueBuildFails() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let notes = try await temporary.store.collection(Note.self, idField: "id")
        for index in 0..<30 {
            _ = try await notes.add(object: note("n\(index)", from: index == 29 ? "u0" : "u\(index)"))
        }
        let error = await #expect(throws: DataStoreError.self) {
            _ = try await temporary.store.collection(
                Note.self, idField: "id",
                indexes: [
                    IndexDefinition("from_user_key", unique: true)
                ])
        }
        #expect(error?.code == .uniqueViolation)
        #expect(error?.message.contains("from_user_key") == true)
        let again = try await temporary.store.collection(Note.self, idField: "id")
        #expect(again.indexes.isEmpty)
        #expect(try again.count() == 30)
        try expectConsistent(temporary.store)
        // The same index without the collision builds.
        _ = try await again.remove(id: "n29")
        let indexed = try await temporary.store.collection(
            Note.self, idField: "id", indexes: [IndexDefinition("from_user_key", unique: true)])
        #expect(indexed.indexes.count == 1)
        try expectConsistent(temporary.store)
    }

    @Test("a single-value index over stored arrays is not added and names the field")
    func arrayBuildFails() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let notes = try await temporary.store.collection(Note.self, idField: "id")
        _ = try await notes.add(object: note("n1", tags: ["a", "b"]))
        let error = await #expect(throws: DataStoreError.self) {
            _ = try await temporary.store.collection(Note.self, idField: "id", indexes: [IndexDefinition("tags")])
        }
        #expect(error?.code == .invalidValue)
        #expect(error?.message.contains("tags") == true)
        #expect(try await temporary.store.collection(Note.self, idField: "id").indexes.isEmpty)
        let multi = try await temporary.store.collection(
            Note.self, idField: "id", indexes: [IndexDefinition("tags", multiValue: true)])
        #expect(try await multi.query(params: ["tags": "b"], options: nil).map(\.id) == ["n1"])
    }

    @Test("a document prepared before an index was declared is still indexed by it")
    func preparedBeforeIndexDeclared() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let plain = try await temporary.store.collection(Note.self, idField: "id")
        // Callers encode before queueing; an index may be declared while their write waits.
        let prepared = try plain.storage.prepare(try DocumentEncoder().encode(note("n1", from: "alice")), id: "n1")
        #expect(prepared.entries.isEmpty)
        let indexed = try await temporary.store.collection(
            Note.self, idField: "id", indexes: [IndexDefinition("from_user_key")])
        #expect(indexed.storage === plain.storage)
        _ = try await temporary.store.writer.submit(estimatedBytes: 0) { transaction in
            try plain.storage.write(prepared, mode: .insert, in: &transaction).version
        }
        try expectConsistent(temporary.store)
        #expect(try await indexed.query(params: ["from_user_key": "alice"], options: nil).map(\.id) == ["n1"])
    }
}
