// Closing a store ends its change streams, after the events of the commits queued before.
import DataStoreCore
import DataStoreKit
import Testing

@Suite("Change streams end")
struct ChangeStreamEndTests {
    @Test("close() ends every changes() stream, and one begun after close ends at once", .timeLimit(.minutes(5)))
    func closeEndsStreams() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let store = temporary.store
        let notes = try await store.collection(Note.self, idField: "id")
        let first = store.changes()
        let second = store.changes()
        let reader = Task {
            var ids: [Value] = []
            for await event in first { ids += event.changes.flatMap(\.inserted) }
            return ids
        }
        _ = try await notes.add(object: note("a"))
        _ = try await notes.add(object: note("b"))
        store.close()
        #expect(await reader.value == ["a", "b"], "the stream ended after the last commit's event")
        var count = 0
        for await _ in second { count += 1 }
        #expect(count == 2)
        var late = 0
        for await _ in store.changes() { late += 1 }
        #expect(late == 0)
    }
}
