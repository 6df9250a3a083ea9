import DataStoreCore
import DataStoreKit
import Foundation
import Testing

@testable import DataStorePostgres

/// The change feed on PostgreSQL: the outbox written in each batch's transaction, read in commit
/// order, woken by `LISTEN/NOTIFY` or polling, trimmed by age with the typed error; observers.
@Suite("PostgreSQL change feed", .enabled(if: PostgresTestServer.isConfigured, PostgresTestServer.skipReason))
struct PostgresChangeFeedTests {
    static let mapping = ObjectMapping<Document>(idField: "id", encode: { $0 }, decode: { $0 })

    /// The first `count` events touching `collection` (other tests share the server's outbox).
    static func collect(_ feed: ChangeFeed, _ collection: String, count: Int) async throws -> [CommitEvent] {
        var events: [CommitEvent] = []
        for try await event in feed where event.changes.contains(where: { $0.collection == collection }) {
            events.append(
                CommitEvent(
                    commit: event.commit, time: event.time,
                    changes: event.changes.filter { $0.collection == collection }))
            if events.count == count { break }
        }
        return events
    }

    @Test("each event's commit is the id its save was acknowledged with, and the version its rows got")
    func commitIDsMatch() async throws {
        let store = try await PostgresTestServer.store()
        defer { store.close() }
        let name = PostgresTestServer.uniqueName("feed")
        let notes = try await store.collection(name, mapping: Self.mapping)
        let start = CommitID(rawValue: try store.changeSource.lastCommit())
        var acknowledged: [CommitID] = []
        for id in ["a", "b", "c"] {
            let context = store.newContext()
            try context.add(["id": .string(id)], to: notes)
            acknowledged.append(try #require(try await context.save()))
        }
        let events = try await Self.collect(try store.changes(after: start), name, count: 3)
        #expect(events.map(\.commit) == acknowledged)
        #expect(events.map { $0.changes.flatMap(\.inserted) } == [["a"], ["b"], ["c"]])
        let version = try TestSQL.run(
            "SELECT version::text FROM \(try TestSQL.table(of: name)) WHERE id = $1",
            [.bytes(try notes.layout.idKey("b"))])
        #expect(version == ["\(acknowledged[1].rawValue)"])
    }

    @Test("puts of new and stored ids, removes and a multi-collection change set are told apart")
    func kindsOfChange() async throws {
        let store = try await PostgresTestServer.store()
        defer { store.close() }
        let first = PostgresTestServer.uniqueName("kinds")
        let second = PostgresTestServer.uniqueName("kinds")
        let one = try await store.collection(first, mapping: Self.mapping)
        let two = try await store.collection(second, mapping: Self.mapping)
        let start = CommitID(rawValue: try store.changeSource.lastCommit())
        _ = try await one.put(id: "p", object: ["v": 1])
        _ = try await one.put(id: "p", object: ["v": 2])
        _ = try await one.remove(id: "p")
        let context = store.newContext()
        try context.add(["id": 1], to: one)
        try context.add(["id": 2], to: two)
        let both = try #require(try await context.save())
        let events = try await Self.collect(try store.changes(after: start), first, count: 4)
        #expect(events.map { $0.changes[0].inserted } == [["p"], [], [], [1]])
        #expect(events.map { $0.changes[0].updated } == [[], ["p"], [], []])
        #expect(events.map { $0.changes[0].removed } == [[], [], ["p"], []])
        let all = try await Self.collect(try store.changes(after: start), second, count: 1)
        #expect(all.map(\.commit) == [both])
        #expect(all.first?.changes.first?.inserted == [2])
    }

    @Test(
        "a commit by another store (another process) reaches a waiting feed, by LISTEN/NOTIFY and by polling",
        arguments: [ChangeNotifications.listen, .poll])
    func otherStoresCommits(_ notifications: ChangeNotifications) async throws {
        var options = PostgresStore.Options(changeNotifications: notifications)
        options.changeFeed.pollInterval = .milliseconds(20)
        let reader = try await PostgresTestServer.store(options: options)
        defer { reader.close() }
        let writer = try await PostgresTestServer.store()
        defer { writer.close() }
        let name = PostgresTestServer.uniqueName("other")
        let notes = try await writer.collection(name, mapping: Self.mapping)
        let feed = try reader.changes(after: CommitID(rawValue: try reader.changeSource.lastCommit()))
        let before = reader.changeSource.pageReads
        let waiting = Task { try await Self.collect(feed, name, count: 2) }
        // Only once the reader has read (and found nothing of ours) does the writer commit.
        while reader.changeSource.pageReads <= before { try await Task.sleep(for: .milliseconds(1)) }
        _ = try await notes.add(object: ["id": "x"])
        _ = try await notes.add(object: ["id": "y"])
        let events = try await waiting.value
        #expect(events.flatMap { $0.changes.flatMap(\.inserted) } == ["x", "y"])
    }

    @Test("a commit above a transaction still running waits for it; then both come once, in transaction-id order")
    func horizon() async throws {
        let store = try await PostgresTestServer.store()
        defer { store.close() }
        let name = PostgresTestServer.uniqueName("horizon")
        let notes = try await store.collection(name, mapping: Self.mapping)
        let start = try store.changeSource.lastCommit()
        // Another writer's transaction takes its id first and records its change, but commits last.
        let other = try Connection("")
        try other.execute("BEGIN")
        let earlier = try #require(other.execute("SELECT pg_current_xact_id()::text::int8").int(0, 0))
        try other.execute(
            "INSERT INTO _changes (commit, seq, time, collection, inserted, updated, removed) "
                + "VALUES (pg_current_xact_id()::text::int8, 0, $1, $2, $3::bytea[], '{}', '{}')",
            [
                .int(Int64(Date().timeIntervalSince1970 * 1000)), .text(name),
                .byteaArray([KeyCodec.encode([.string("theirs")])])
            ])
        let later = try #require(
            try await { () async throws -> CommitID? in
                let context = store.newContext()
                try context.add(["id": "mine"], to: notes)
                return try await context.save()
            }())
        #expect(Int(earlier) < later.rawValue)
        let waiting = Task {
            try await Self.collect(try store.changes(after: CommitID(rawValue: start)), name, count: 2)
        }
        let held = try store.changeSource.readPage(after: start, limit: 1_000).events
        #expect(!held.contains { $0.commit == later }, "a commit above a running transaction was delivered")
        try other.execute("COMMIT")
        let events = try await waiting.value
        #expect(events.map(\.commit) == [CommitID(rawValue: Int(earlier)), later])
        #expect(events.map { $0.changes.flatMap(\.inserted) } == [["theirs"], ["mine"]])
    }

    @Test("an observer gets the current results, then the results after another store's commit")
    func observation() async throws {
        let store = try await PostgresTestServer.store()
        defer { store.close() }
        let other = try await PostgresTestServer.store()
        defer { other.close() }
        let name = PostgresTestServer.uniqueName("observed")
        let notes = try await store.collection(name, mapping: Self.mapping, indexes: [IndexDefinition("n")])
        _ = try await notes.add(object: ["id": "a", "n": 1])
        var iterator = try notes.observe(params: ["n >=": 1], options: ["sort": "n"]).makeAsyncIterator()
        #expect(try await iterator.next()?.map { $0["id"] } == ["a"])
        let theirs = try await other.documentCollection(name)
        _ = try await theirs.add(object: ["id": "b", "n": 2])
        var seen = try await iterator.next()?.map { $0["id"] }
        // A refresh may come from an unrelated commit first; the results converge on the new one.
        while seen == ["a"] { seen = try await iterator.next()?.map { $0["id"] } }
        #expect(seen == ["a", "b"])
        store.close()
        while try await iterator.next() != nil {}
    }

    @Test("resuming after a transaction the server has not reached is a named error")
    func futurePosition() async throws {
        let store = try await PostgresTestServer.store()
        defer { store.close() }
        let error = #expect(throws: DataStoreError.self) {
            _ = try store.changes(after: CommitID(rawValue: 1 << 60))
        }
        #expect(error?.code == .invalidValue)
    }

    @Test(
        "past the age bound the writer trims old commits; a trimmed position is .changesTrimmed naming the oldest kept")
    func trimmedByAge() async throws {
        let database = "dsk_trim_\(UUID().uuidString.prefix(8).lowercased())"
        try TestSQL.run("CREATE DATABASE \(database)")
        defer { _ = try? TestSQL.run("DROP DATABASE \(database) WITH (FORCE)") }
        var options = PostgresStore.Options()
        options.changeFeed.maxAge = .milliseconds(1)
        let store = try await PostgresStore.open(url: "dbname=\(database)", options: options)
        defer { store.close() }
        let notes = try await store.collection("trimmed", mapping: Self.mapping)
        var commits: [CommitID] = []
        for id in ["a", "b", "c"] {
            let context = store.newContext()
            try context.add(["id": .string(id)], to: notes)
            commits.append(try #require(try await context.save()))
            try await Task.sleep(for: .milliseconds(20))
        }
        try await PostgresTestServer.awaitHorizon(store, past: commits[2])
        let error = #expect(throws: DataStoreError.self) { _ = try store.changes(after: commits[0]) }
        #expect(error?.code == .changesTrimmed)
        let trimmed = error?.underlying as? ChangesTrimmed
        #expect(trimmed?.trimmedThrough == commits[1])
        #expect(trimmed?.oldestAvailable == commits[2])
        let rest = try await Self.collect(try store.changes(after: commits[1]), "trimmed", count: 1)
        #expect(rest.map(\.commit) == [commits[2]])
        #expect(
            try await Self.collect(try store.changes(after: nil), "trimmed", count: 1).map(\.commit) == [commits[2]])
    }

    @Test("trimming takes only a prefix in commit order: a young commit keeps the old ones after it")
    func trimmedPrefixOnly() async throws {
        let database = "dsk_trim_\(UUID().uuidString.prefix(8).lowercased())"
        try TestSQL.run("CREATE DATABASE \(database)")
        defer { _ = try? TestSQL.run("DROP DATABASE \(database) WITH (FORCE)") }
        var options = PostgresStore.Options()
        options.changeFeed.maxAge = .seconds(60)
        let store = try await PostgresStore.open(url: "dbname=\(database)", options: options)
        defer { store.close() }
        let notes = try await store.collection("prefix", mapping: Self.mapping)
        // Commits 10 and 30 are old; 20 was stamped by a writer whose clock runs ahead.
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        let connection = try Connection("dbname=\(database)")
        for (commit, time) in [(10, Int64(0)), (20, now + 3_600_000), (30, Int64(0))] {
            try connection.execute(
                "INSERT INTO _changes VALUES ($1, 0, $2, 'prefix', '{}', '{}', '{}')", [.int(Int64(commit)), .int(time)]
            )
        }
        _ = try await notes.add(object: ["id": "trigger"])
        let error = #expect(throws: DataStoreError.self) { _ = try store.changes(after: CommitID(rawValue: 9)) }
        let trimmed = error?.underlying as? ChangesTrimmed
        #expect(trimmed?.trimmedThrough == CommitID(rawValue: 10))
        #expect(trimmed?.oldestAvailable == CommitID(rawValue: 20))
    }

    @Test("with the feed disabled, commits write no outbox row and a feed of this store sees none")
    func disabled() async throws {
        _ = try await PostgresTestServer.sharedStore() // a store with the feed on has made the outbox
        let store = try await PostgresTestServer.store(options: PostgresStore.Options(changeFeed: .disabled))
        defer { store.close() }
        let name = PostgresTestServer.uniqueName("unrecorded")
        let notes = try await store.collection(name, mapping: Self.mapping)
        _ = try await notes.add(object: ["id": "quiet"])
        #expect(try TestSQL.run("SELECT count(*)::text FROM _changes WHERE collection = $1", [.text(name)]) == ["0"])
        let events = try await Self.collect(try store.changes(after: nil).recordedSoFar, name, count: 1)
        #expect(events.isEmpty)
    }

    @Test("changes() streams the commits from now on, by this store and another, and ends when the store closes")
    func streamFromNow() async throws {
        let store = try await PostgresTestServer.store()
        let other = try await PostgresTestServer.store()
        defer { other.close() }
        let name = PostgresTestServer.uniqueName("stream")
        let notes = try await store.collection(name, mapping: Self.mapping)
        let stream = store.changes()
        let before = store.changeSource.pageReads
        let reading = Task {
            var seen: [Value] = []
            for await event in stream {
                seen += event.changes.filter { $0.collection == name }.flatMap(\.inserted)
                if seen.count == 2 { break }
            }
            return seen
        }
        while store.changeSource.pageReads <= before { try await Task.sleep(for: .milliseconds(1)) }
        _ = try await notes.add(object: ["id": "mine"])
        _ = try await other.documentCollection(name).add(object: ["id": "theirs"])
        #expect(await reading.value == ["mine", "theirs"])
        let waiting = store.changes()
        let ended = Task { for await _ in waiting {} }
        store.close()
        await ended.value
    }

    @Test("a feed ends once the store closes")
    func endsOnClose() async throws {
        let store = try await PostgresTestServer.store()
        let feed = try store.changes(after: CommitID(rawValue: try store.changeSource.lastCommit()))
        let before = store.changeSource.pageReads
        let reading = Task { try await Self.collect(feed, "none-\(UUID())", count: 1) }
        while store.changeSource.pageReads <= before { try await Task.sleep(for: .milliseconds(1)) }
        store.close()
        #expect(try await reading.value.isEmpty)
    }
}
