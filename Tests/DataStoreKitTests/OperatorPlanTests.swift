// The new operators through the store: `^=` and `exists true` are served by index ranges,
// `exists false` and `!in` filter; results agree with brute force.
import DataStoreCore
@testable import DataStoreKit
import Testing

@Suite("Prefix, exists and not-in through the store")
struct OperatorPlanTests {
    @Test("explain shows the index range a prefix or a presence uses; answers agree with brute force")
    func plansAndAnswers() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let notes = try await temporary.store.collection(
            Note.self, idField: "id",
            indexes: [
                IndexDefinition("message"), IndexDefinition("tags", multiValue: true)
            ])
        let messages = ["Alice", "Alfred", "Bob", "Al", "alice", "Am"]
        for (index, message) in messages.enumerated() {
            _ = try await notes.add(
                object: note("n\(index)", message: message, tags: index % 2 == 0 ? ["Al\(index)"] : nil))
        }
        let prefix = try notes.explain(params: ["message ^=": "Al"]).description
        #expect(prefix.hasPrefix(#"index scan of message on Note (message in ["Al", "Am")), forward"#), "\(prefix)")
        #expect(
            try await notes.query(params: ["message ^=": "Al"], options: ["sort": ["message"]]).map(\.message)
                == ["Al", "Alfred", "Alice"])
        let tagged = try notes.explain(params: ["tags ^=": "Al"]).description
        #expect(tagged.hasPrefix("index scan of tags on Note"), "\(tagged)")
        #expect(try await notes.count(params: ["tags ^=": "Al"]) == 3)

        let present = try notes.explain(params: ["message exists": true]).description
        #expect(present.hasPrefix("index scan of message on Note (message in [null, *)"), "\(present)")
        #expect(try await notes.count(params: ["message exists": true]) == 6)
        // On a multi-value index presence is a filter: an empty array has no element entry.
        #expect(try notes.explain(params: ["tags exists": true]).description.hasPrefix("full scan"))
        #expect(try await notes.count(params: ["tags exists": true]) == 3)
        #expect(try await notes.count(params: ["tags exists": false]) == 3)
        #expect(try await notes.query(params: ["message !in": ["Bob", "Am"]], options: nil).count == 4)
    }
}
