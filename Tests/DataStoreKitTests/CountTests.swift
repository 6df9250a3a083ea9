// Counting without building objects: from index entries alone where they decide every
// condition, otherwise from record bytes; a counter, not a timing, says which.
import DataStoreCore
@testable import DataStoreKit
import Testing

@Suite("Counting")
struct CountTests {
    @Test("a count an index serves reads no record; one it does not serve reads candidates only")
    func countsFromTheIndex() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let notes = try await temporary.store.collection(
            Note.self, idField: "id",
            indexes: [
                IndexDefinition("created_ts"), IndexDefinition("pair", fields: ["from_user_key", "to_user_key"]),
                IndexDefinition("tags", multiValue: true), IndexDefinition("message")
            ])
        let long = String(repeating: "m", count: 1_000)
        for index in 0..<300 {
            _ = try await notes.add(
                object: note(
                    "n\(index)", from: "u\(index % 3)", to: "v\(index % 5)", ts: Double(index),
                    message: index % 10 == 0 ? long + "\(index % 20)" : "short",
                    tags: ["t\(index % 4)", "all"]))
        }
        func outcome(_ params: [String: Value]) throws -> QueryCounter.Outcome {
            try notes.countOutcome(Query(params: params, options: ["limit": 1]))
        }
        let range = try outcome(["created_ts >=": 100, "created_ts <": 250])
        #expect(range == .init(count: 150, fromIndex: true, recordsRead: 0))
        let pair = try outcome(["from_user_key": "u1", "to_user_key": "v2"])
        #expect(pair == .init(count: 20, fromIndex: true, recordsRead: 0))
        let prefix = try outcome(["from_user_key": "u1", "to_user_key >": "v2"])
        #expect(prefix == .init(count: 40, fromIndex: true, recordsRead: 0))
        // Every document holds "all": the multi-value index has two entries each, counted once.
        #expect(try outcome(["tags": "all"]) == .init(count: 300, fromIndex: true, recordsRead: 0))
        #expect(try outcome(["tags in": ["t1", "t2"]]) == .init(count: 150, fromIndex: true, recordsRead: 0))
        // Cut keys: the 30 long messages share a cut key, so their records decide.
        let cut = try outcome(["message": .string(long + "0")])
        #expect(cut.count == 15 && cut.fromIndex && cut.recordsRead == 30, "\(cut)")
        // A condition outside the index: candidates' records decide, checked on their bytes.
        let residual = try outcome(["created_ts <": 50, "to_user_key": "v1"])
        #expect(residual.count == 10 && !residual.fromIndex, "\(residual)")
        #expect(try await notes.count(params: ["type": "text"]) == 300)
        #expect(try await notes.count(params: nil) == 300)
    }

    @Test("every model counts through the protocol; the default fetches and counts")
    func protocolCount() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let notes = try await temporary.store.collection(Note.self, idField: "id")
        for index in 0..<7 { _ = try await notes.add(object: note("n\(index)", ts: Double(index))) }
        let model: any ModelProtocol<Note> = notes
        #expect(try await model.count(params: ["created_ts >=": 3]) == 4)
    }
}
