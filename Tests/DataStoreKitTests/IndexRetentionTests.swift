// An index is never dropped because a declaration leaves it out: it is kept, maintained, used and
// reported, and dropped only when asked.
import DataStoreCore
@testable import DataStoreKit
import Foundation
import Testing

@Suite("Index retention")
struct IndexRetentionTests {
    @Test("reopening with a shorter index list keeps the missing index, maintains and uses it, and reports it")
    func shorterDeclarationKeeps() async throws {
        let path = NSTemporaryDirectory() + "datastorekit-retention-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let store = try DataStore.open(path: path)
        let full = try await store.collection(
            Note.self, idField: "id",
            indexes: [
                IndexDefinition("created_ts"), IndexDefinition("from_user_key")
            ])
        for index in 0..<30 {
            _ = try await full.add(object: note("n\(index)", from: "u\(index % 3)", ts: Double(index)))
        }

        let short = try await store.collection(Note.self, idField: "id", indexes: [IndexDefinition("from_user_key")])
        #expect(short.indexes.map(\.name) == ["created_ts", "from_user_key"])
        #expect(short.undeclaredIndexes == [IndexDefinition("created_ts")])
        let statistics = try #require(try store.statistics().collections.first { $0.name == "Note" })
        #expect(statistics.indexes.map(\.declared) == [false, true])
        #expect(statistics.indexes.first?.entries == 30)

        // Writes after the shorter declaration keep the kept index complete, and queries use it.
        for index in 30..<40 { _ = try await short.add(object: note("n\(index)", ts: Double(index))) }
        _ = try await short.remove(id: "n0")
        #expect(try short.explain(params: ["created_ts >=": 35]).description.contains("index scan of created_ts"))
        #expect(try await short.query(params: ["created_ts >=": 35], options: nil).count == 5)
        #expect(try store.statistics().collections.first?.indexes.first?.entries == 39)
        try expectConsistent(store)

        // Declaring it again clears the report.
        let again = try await store.collection(
            Note.self, idField: "id",
            indexes: [
                IndexDefinition("created_ts"), IndexDefinition("from_user_key")
            ])
        #expect(again.undeclaredIndexes.isEmpty)
        #expect(try store.statistics().collections.first?.indexes.map(\.declared) == [true, true])
    }

    @Test("the kept index and its report survive a reopen of the store")
    func keptAcrossReopen() async throws {
        let path = NSTemporaryDirectory() + "datastorekit-retention-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: path) }
        do {
            let store = try DataStore.open(path: path)
            let notes = try await store.collection(Note.self, idField: "id", indexes: [IndexDefinition("created_ts")])
            _ = try await notes.add(object: note("a", ts: 1))
            _ = try await store.collection(Note.self, idField: "id")
            store.close()
        }
        let store = try DataStore.open(path: path)
        let notes = try await store.collection(Note.self, idField: "id")
        #expect(notes.undeclaredIndexes.map(\.name) == ["created_ts"])
        #expect(try await notes.query(params: ["created_ts": 1], options: nil).map(\.id) == ["a"])
    }

    @Test("an index is dropped only when asked: dropIndex, or a declaration made with .drop")
    func droppedOnlyWhenAsked() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let store = temporary.store
        let notes = try await store.collection(
            Note.self, idField: "id",
            indexes: [
                IndexDefinition("created_ts"), IndexDefinition("from_user_key"), IndexDefinition("type")
            ])
        _ = try await notes.add(object: note("a"))
        _ = try await store.collection(Note.self, idField: "id", indexes: [IndexDefinition("type")])

        let dropped = try await store.dropIndex(named: "created_ts", from: "Note")
        #expect(dropped == IndexDefinition("created_ts"))
        let after = try await store.collection(Note.self, idField: "id", indexes: [IndexDefinition("type")])
        #expect(after.indexes.map(\.name) == ["from_user_key", "type"])
        #expect(after.undeclaredIndexes.map(\.name) == ["from_user_key"], "the other kept index is still reported")

        let missing = await #expect(throws: DataStoreError.self) {
            try await store.dropIndex(named: "nope", from: "Note")
        }
        #expect(missing?.code == .notFound)
        #expect(
            missing?.message.contains("its indexes are from_user_key, type") == true, "\(String(describing: missing))")

        let exact = try await store.collection(
            Note.self, idField: "id", indexes: [IndexDefinition("type")],
            undeclaredIndexes: .drop)
        #expect(exact.indexes.map(\.name) == ["type"])
        #expect(exact.undeclaredIndexes.isEmpty)
        try expectConsistent(store)
    }

    @Test("addIndex builds one index and leaves the others' declarations alone")
    func addIndexLeavesOthers() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let store = temporary.store
        let notes = try await store.collection(Note.self, idField: "id", indexes: [IndexDefinition("type")])
        for index in 0..<5 { _ = try await notes.add(object: note("n\(index)", ts: Double(index))) }
        _ = try await store.collection(Note.self, idField: "id")
        try await store.addIndex(IndexDefinition("created_ts"), to: "Note")
        let indexes = try #require(try store.statistics().collections.first?.indexes)
        #expect(indexes.map(\.definition.name) == ["type", "created_ts"])
        #expect(indexes.map(\.declared) == [false, true])
        #expect(indexes.map(\.entries) == [5, 5])
        let clash = await #expect(throws: DataStoreError.self) {
            try await store.addIndex(IndexDefinition("type", fields: ["message"]), to: "Note")
        }
        #expect(clash?.code == .schemaMismatch)
    }
}
