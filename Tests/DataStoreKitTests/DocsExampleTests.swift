import DataStoreCore
import DataStoreKit
import Foundation
import Synchronization
import Testing

// The Swift blocks of docs/changes.md and docs/migrations.md, verbatim, each inside the
// declarations that give it its context, so that each compiles; the blocks of docs/queries.md are in
// QueriesDocExampleTests.swift, README.md's manifest fragment in DocsBlockTests.swift, docs/rest.md's
// and docs/postgres.md's in their own modules' tests. `DocsBlockTests` checks that every block is here.

/// docs/changes.md's feed consumer: it indexes the ids each commit changed and keeps the last
/// commit it handled, so that it resumes after it.
actor ChangeIndexer {
    /// The last commit handled, as a consumer would store it.
    private(set) var position: CommitID?
    /// The ids each collection holds, as the consumer's index sees them.
    private(set) var indexed: [String: Set<Value>] = [:]

    init(position: CommitID? = nil) { self.position = position }

    func loadPosition() throws -> CommitID? { position }

    func savePosition(_ commit: CommitID) throws { position = commit }

    func index(_ collection: String, inserted: [Value], updated: [Value], removed: [Value]) async throws {
        indexed[collection, default: []].formUnion(inserted + updated)
        indexed[collection, default: []].subtract(removed)
    }

    /// docs/changes.md, "The change feed": runs until the store closes.
    func follow(_ store: DataStore) async throws {
        let saved = try loadPosition() // the last CommitID this consumer handled, or nil
        for try await event in try store.changes(after: saved) {
            for change in event.changes { // one entry per collection the commit touched
                try await index(
                    change.collection, inserted: change.inserted, updated: change.updated,
                    removed: change.removed)
            }
            try savePosition(event.commit) // resume after it next time
        }
    }
}

/// The unread count docs/changes.md's observation keeps up to date: every count it was given.
final class Badge: Sendable {
    private let counts = Mutex<[Int]>([])

    /// The counts set so far, oldest first.
    var history: [Int] { counts.withLock { $0 } }

    var count: Int {
        get { counts.withLock { $0.last ?? 0 } }
        set { counts.withLock { $0.append(newValue) } }
    }
}

/// A message with a read flag, as docs/changes.md observes them.
struct Mail: Codable, Sendable {
    var id: String
    var read: Bool
    var created_ts: Double
}

/// docs/changes.md, "Live query results": runs until the store closes.
func showUnread(_ messages: StoreCollection<Mail>, on badge: Badge) async throws {
    for try await unread in try messages.observe(params: ["read": false], options: ["sort": "-created_ts"]) {
        badge.count = unread.count
    }
}

/// docs/changes.md, "Consumers whose position the store keeps": copies what the feed lists so far.
func copyNewMessages(in store: some DocumentStore) async throws {
    let messages = try await store.documentCollection("messages")
    let archive = try await store.documentCollection("archive")
    for try await event in try store.changes(for: "archiver").recordedSoFar {
        let inserted = event.changes.filter { $0.collection == "messages" }.flatMap(\.inserted)
        try await store.write { tx in
            for id in inserted { try tx.put(id: id, object: try tx.get(id: id, from: messages), in: archive) }
            try tx.saveFeedPosition(event.commit, of: "archiver")
        }
    }
}

/// docs/migrations.md's migrator, run on the store at `path`.
func migrateExample(path: String) async throws -> (DataStore, Migrator) {
    var migrator = Migrator()
    migrator.registerMigration("v1: messages, indexed by created_ts") { migration in
        migration.createCollection("Message", idField: "id", indexes: [IndexDefinition("created_ts")])
    }
    migrator.registerMigration("v2: text becomes message, drop the old index") { migration in
        migration.renameField("text", to: "message", in: "Message")
        migration.dropIndex(named: "by_text", from: "Message")
    }
    migrator.registerMigration("v3: drop empty drafts, stamp the rest") { migration in
        migration.transformDocuments(in: "Message") { document in
            if document["draft"] == true && document["message"] == "" { return nil } // removed
            var stamped = document
            stamped["schema"] = 3
            return stamped
        }
    }
    let store = try await DataStore.open(path: path, migrator: migrator) // or: try await migrator.migrate(store)
    return (store, migrator)
}

@Suite("The examples of docs/changes.md and docs/migrations.md")
struct DocsExampleTests {
    @Test("the change feed consumer indexes every commit once and resumes after the last one", .timeLimit(.minutes(5)))
    func changeFeed() async throws {
        let path = NSTemporaryDirectory() + "datastorekit-docs-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: path) }
        var store = try DataStore.open(path: path)
        var mails = try await store.collection(Mail.self, idField: "id")
        _ = try await mails.add(object: Mail(id: "a", read: false, created_ts: 1))
        _ = try await mails.add(object: Mail(id: "b", read: false, created_ts: 2))
        _ = try await mails.remove(id: "a")
        let indexer = ChangeIndexer()
        try await Self.follow(store, with: indexer, through: try await Self.lastCommit(of: mails))
        #expect(await indexer.indexed == ["Mail": ["b"]])

        // Reopened, the consumer resumes after the commit it saved: it meets only the new ones.
        let resumed = ChangeIndexer(position: await indexer.position)
        store = try DataStore.open(path: path)
        mails = try await store.collection(Mail.self, idField: "id")
        _ = try await mails.add(object: Mail(id: "c", read: false, created_ts: 3))
        try await Self.follow(store, with: resumed, through: try await Self.lastCommit(of: mails))
        #expect(await resumed.indexed == ["Mail": ["c"]])
    }

    @Test("the observation keeps the badge at the number of unread messages", .timeLimit(.minutes(5)))
    func observation() async throws {
        let store = try DataStore.inMemory()
        let mails = try await store.collection(Mail.self, idField: "id")
        _ = try await mails.add(object: Mail(id: "a", read: false, created_ts: 1))
        _ = try await mails.add(object: Mail(id: "b", read: true, created_ts: 2))
        let badge = Badge()
        let watching = Task { try await showUnread(mails, on: badge) }
        try await Self.waitUntil { badge.history.last == 1 }
        _ = try await mails.add(object: Mail(id: "c", read: false, created_ts: 3))
        try await Self.waitUntil { badge.history.last == 2 }
        _ = try await mails.update(id: "a", set: ["read": true])
        try await Self.waitUntil { badge.history.last == 1 && badge.history.contains(2) }
        store.close()
        try await watching.value
        #expect(badge.count == 1)
    }

    @Test("the migrations run once, in order, and leave the documents and indexes they describe")
    func migrations() async throws {
        let path = NSTemporaryDirectory() + "datastorekit-docs-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let before = try DataStore.open(path: path)
        let old = try await before.collection(
            "Message", mapping: .documents(idField: "id"), indexes: [IndexDefinition("by_text", fields: ["text"])])
        _ = try await old.add(contentsOf: [
            ["id": "m1", "text": "hello", "created_ts": 1437108600],
            ["id": "m2", "text": "", "draft": true],
            ["id": "m3", "text": "", "draft": false]
        ])
        before.close()

        let (store, migrator) = try await migrateExample(path: path)
        defer { store.close() }
        #expect(try migrator.appliedMigrations(in: store).count == 3)
        let messages = try await store.collection("Message", mapping: .documents(idField: "id"))
        let stored = try await messages.query(params: nil, options: ["sort": "id"])
        #expect(
            stored == [
                ["id": "m1", "message": "hello", "created_ts": 1437108600, "schema": 3],
                ["id": "m3", "message": "", "draft": false, "schema": 3]
            ])
        #expect(messages.indexes.map(\.name) == ["created_ts"])
        #expect(try await migrator.migrate(store).isEmpty)
    }

    @Test("the archiver copies each message once, resuming after the position it saved with its copies")
    func namedConsumer() async throws {
        let store = try DataStore.inMemory()
        defer { store.close() }
        let plain = ObjectMapping<Document>(idField: "id", encode: { $0 }, decode: { $0 })
        let messages = try await store.collection("messages", mapping: plain)
        let archive = try await store.collection("archive", mapping: plain)
        _ = try await messages.add(contentsOf: [["id": "m1", "text": "a"], ["id": "m2", "text": "b"]])
        try await copyNewMessages(in: store)
        _ = try await messages.add(object: ["id": "m3", "text": "c"])
        try await copyNewMessages(in: store)
        try await copyNewMessages(in: store)
        #expect(try await archive.query(params: nil, options: nil).map { $0["text"] } == ["a", "b", "c"])
        let position = try #require(try store.feedPosition(of: "archiver"))
        // Nothing after the position but the archiver's own last commit(s): no message is listed again.
        for try await event in try store.changes(after: position).recordedSoFar {
            #expect(!event.changes.contains { $0.collection == "messages" })
        }
    }

    /// The newest commit in the feed of the store `collection` is in.
    static func lastCommit(of collection: StoreCollection<Mail>) async throws -> CommitID {
        var last: CommitID?
        for try await event in try collection.store.changes(after: nil).recordedSoFar { last = event.commit }
        return try #require(last)
    }

    /// Runs `indexer` on `store`'s feed until it has handled `last`, then closes the store, which
    /// ends the feed.
    static func follow(_ store: DataStore, with indexer: ChangeIndexer, through last: CommitID) async throws {
        let following = Task { try await indexer.follow(store) }
        while await indexer.position.map({ $0 < last }) ?? true {
            try await Task.sleep(for: .milliseconds(2))
        }
        store.close()
        try await following.value
    }

    /// Waits until `condition` holds (the suite's time limit bounds the wait).
    static func waitUntil(_ condition: () -> Bool) async throws {
        while !condition() { try await Task.sleep(for: .milliseconds(2)) }
    }
}
