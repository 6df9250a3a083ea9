import DataStorePostgres
import Foundation
import ModelConformance
import Testing

// The Swift blocks of docs/postgres.md, verbatim, each inside the declarations that give it its
// context, so that each compiles; DataStoreKitTests' `DocsBlockTests` checks that every block is here.

/// docs/postgres.md's calls, on the seed's `Message`.
enum PostgresDoc {
    /// The first example, as written. It is only compiled: its server, db.internal, is not there.
    static func firstExample() async throws -> [Message] {
        let store = try await PostgresStore.open(url: "postgresql://app@db.internal:5432/app")
        let messages = try await store.collection(
            Message.self,
            indexes: [IndexDefinition("created_ts"), IndexDefinition("pair", fields: ["from_user_key", "to_user_key"])])
        let recent = try await messages.query(params: ["created_ts >=": 1437108600], options: ["limit": 20])
        return recent
    }

    /// "Contexts": an add and an update, saved as one change set.
    static func contextExample(
        _ store: PostgresStore, message: Message, messages: PostgresCollection<Message>
    ) async throws -> CommitID? {
        let context = store.newContext()
        try context.add(message, to: messages)
        try context.update(id: "42", set: ["read": true], in: messages)
        let commit = try await context.save() // one change set, or .conflict and nothing written
        return commit
    }
}

/// docs/postgres.md's feed consumer: it indexes what each commit changed and keeps the last commit
/// it handled.
actor OutboxIndexer {
    /// The last commit handled, as a consumer would store it.
    private(set) var position: CommitID?
    /// Every commit's changes, in the order they came.
    private(set) var indexed: [CollectionChanges] = []

    func index(_ changes: [CollectionChanges]) async throws { indexed += changes }

    func savePosition(_ commit: CommitID) throws { position = commit }

    /// docs/postgres.md, "The change feed": runs until the store closes.
    func follow(_ store: PostgresStore, after savedPosition: CommitID?) async throws {
        for try await event in try store.changes(after: savedPosition) {
            try await index(event.changes)
            try savePosition(event.commit)
        }
    }
}

@Suite("The examples of docs/postgres.md", .enabled(if: PostgresTestServer.isConfigured, PostgresTestServer.skipReason))
struct PostgresDocsExampleTests {
    @Test("a context's add and update are saved as one commit", .timeLimit(.minutes(5)))
    func context() async throws {
        let store = try await PostgresTestServer.store()
        defer { store.close() }
        let name = PostgresTestServer.uniqueName("Message")
        let messages = try await store.collection(Message.self, name: name)
        _ = try await messages.put(id: "42", object: Message(dictionary: ["id": "42", "message": "hello"]))
        let message = Message(dictionary: ["id": "m1", "message": "hi", "created_ts": 1437108600.0])
        let commit = try #require(try await PostgresDoc.contextExample(store, message: message, messages: messages))
        let documents = try await store.documentCollection(name)
        let updated = try await documents.get(id: "42")
        #expect(updated["read"] == true && updated["message"] == "hello")
        #expect(try await documents.get(id: "m1")["message"] == "hi")
        let feed = try store.changes(after: CommitID(rawValue: commit.rawValue - 1))
        for try await event in feed where event.changes.contains(where: { $0.collection == name }) {
            #expect(event.commit == commit)
            #expect(event.changes.first { $0.collection == name }.map { $0.inserted + $0.updated } == ["m1", "42"])
            break
        }
    }

    @Test("the feed consumer gets each commit after its saved position once", .timeLimit(.minutes(5)))
    func feed() async throws {
        let store = try await PostgresTestServer.store()
        let name = PostgresTestServer.uniqueName("Message")
        let messages = try await store.collection(Message.self, name: name)
        let saved = try await Self.save(store) { try $0.add(Message(dictionary: ["id": "a"]), to: messages) }
        _ = try await Self.save(store) { try $0.add(Message(dictionary: ["id": "b"]), to: messages) }
        let last = try await Self.save(store) { try $0.remove(id: "a", from: messages) }

        let indexer = OutboxIndexer()
        let following = Task { try await indexer.follow(store, after: saved) }
        while await indexer.position.map({ $0 < last }) ?? true {
            try await Task.sleep(for: .milliseconds(5))
        }
        store.close()
        try await following.value
        let mine = await indexer.indexed.filter { $0.collection == name }
        #expect(mine.map(\.inserted) == [["b"], []])
        #expect(mine.map(\.removed) == [[], ["a"]])
    }

    /// Saves what `stage` stages in a new context of `store`, and returns the commit.
    static func save(_ store: PostgresStore, _ stage: (PostgresContext) throws -> Void) async throws -> CommitID {
        let context = store.newContext()
        try stage(context)
        return try #require(try await context.save())
    }
}
