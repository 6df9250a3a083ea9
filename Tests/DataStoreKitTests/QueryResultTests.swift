import DataStoreCore
import DataStoreKit
import Foundation
import Testing

/// A note whose tags are required: records stored without them do not decode.
private struct TaggedNote: Codable, Equatable, Sendable {
    var id: String
    var tags: [String]
}

@Suite("Query results: collected in order, however many, and released on a failed decode")
struct QueryResultTests {
    @Test("queries return every match in order, past the first buffer's room, with and without a limit")
    func manyResults() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let notes = try await temporary.store.collection(Note.self, idField: "id")
        let ids = (0..<70).map { String(format: "n%03d", $0) }
        _ = try await notes.add(contentsOf: ids.reversed().map { note($0) })
        #expect(try notes.query(Query(params: nil, options: nil)).map(\.id) == ids)
        for limit in [1, 3, 4, 5, 20, 33] {
            let limited = try notes.query(Query(params: nil, options: ["limit": .int(Int64(limit))]))
            #expect(limited.map(\.id) == Array(ids.prefix(limit)))
        }
        let sorted = try notes.query(Query(params: nil, options: ["sort": ["-id"], "limit": 40, "offset": 5]))
        #expect(sorted.map(\.id) == Array(ids.reversed().dropFirst(5).prefix(40)))
        #expect(try await notes.get(id: "n042") == note("n042"))
    }

    @Test("a record that does not decode fails the query with a codec error naming its id")
    func failedDecode() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let notes = try await temporary.store.collection(Note.self, name: "notes", idField: "id")
        let tagged = (0..<30).map { note(String(format: "t%02d", $0), tags: ["a"]) }
        _ = try await notes.add(contentsOf: tagged + [note("t15x")])
        let strict = try await temporary.store.collection(TaggedNote.self, name: "notes", idField: "id")
        #expect(try strict.query(Query(params: ["id <": "t15"], options: nil)).count == 15)
        let error = #expect(throws: DataStoreError.self) { try strict.query(Query(params: nil, options: nil)) }
        #expect(error?.code == .codec)
        #expect(error?.message.contains("t15x") == true)
        let missing = #expect(throws: DataStoreError.self) { try strict.get(id: "t15x") }
        #expect(missing?.code == .codec)
        let absent = #expect(throws: DataStoreError.self) { try strict.get(id: "t99") }
        #expect(absent?.code == .notFound)
    }

    @Test("a point query over an index fails alike on its first call, planned, and on its compiled calls")
    func failedDecodeInPointQuery() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let byType = [IndexDefinition("type")]
        let notes = try await temporary.store.collection(Note.self, name: "notes", idField: "id", indexes: byType)
        _ = try await notes.add(contentsOf: [note("p1", type: "a", tags: ["x"]), note("p2", type: "b")])
        let strict = try await temporary.store.collection(
            TaggedNote.self, name: "notes", idField: "id", indexes: byType)
        // The first call of the shape is planned (and teaches the shape); the later ones run compiled.
        for value: Value in ["b", "a", "c", "b"] {
            switch value {
            case "a":
                #expect(
                    try await strict.query(params: ["type": value], options: nil) == [TaggedNote(id: "p1", tags: ["x"])]
                )
            case "c":
                #expect(try await strict.query(params: ["type": value], options: nil).isEmpty)
            default:
                let error = await #expect(throws: DataStoreError.self) {
                    try await strict.query(params: ["type": value], options: nil)
                }
                #expect(error?.code == .codec)
                #expect(error?.message.contains("p2") == true, "\(String(describing: error))")
                #expect(error?.message.contains("notes") == true)
            }
        }
    }
}
