import DataStoreCore
import Foundation
import Testing
@testable import DataStoreKit
@testable import LMDB

/// A record damaged on disk can be replaced or removed through the store, which also removes its
/// index entries, leaving a store that `check()` finds clean.
@Suite("Repairing damaged records")
struct RepairTests {
    static func damage(_ id: String, in store: DataStore) throws {
        var key: [UInt8] = []
        KeyCodec.append(.string(id), to: &key)
        let records = try store.environment.openDatabase(named: "c/Note")
        try store.environment.write { transaction in
            try transaction.put(
                [0, 0, 0, 0, 0, 0, 0, 7, 0x01, 0x01, 0x02, 0x69, 0x64, 0x09, 0x7F, 0x61], forKey: key, in: records)
        }
    }

    @Test("put over a damaged record replaces it and its index entries")
    func putRepairs() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let notes = try await temporary.store.collection(
            Note.self, idField: "id",
            indexes: [
                IndexDefinition("created_ts"), IndexDefinition("tags", multiValue: true)
            ])
        _ = try await notes.add(object: note("a", ts: 1, tags: ["x", "y"]))
        _ = try await notes.add(object: note("b", ts: 2))
        try Self.damage("a", in: temporary.store)
        #expect(try temporary.store.check().contains { $0.message.contains("\"a\"") })
        let error = await #expect(throws: DataStoreError.self) { try await notes.all() }
        #expect(error?.code == .codec)
        #expect(error?.message.contains("the record \"a\" in collection Note") == true)

        _ = try await notes.put(id: "a", object: note("a", ts: 5, tags: ["z"]))
        try expectConsistent(temporary.store)
        #expect(try await notes.query(params: ["tags": "x"], options: nil).isEmpty)
        #expect(
            try await notes.query(params: ["created_ts >=": 0], options: ["sort": ["created_ts"]]).map(\.id) == [
                "b", "a"
            ])
    }

    @Test("removing a damaged record removes its index entries too")
    func removeRepairs() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        _ = try await temporary.store.collection(Note.self, idField: "id", indexes: [IndexDefinition("created_ts")])
        let documents = try await temporary.store.documentCollection("Note")
        _ = try await documents.add(object: ["id": "a", "created_ts": 1])
        try Self.damage("a", in: temporary.store)
        _ = try await documents.remove(id: "a")
        try expectConsistent(temporary.store)
        #expect(try documents.count() == 0)
    }
}
