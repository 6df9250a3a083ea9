import DataStoreCore
import DataStoreKit
import Foundation
import Testing

@testable import DataStorePostgres

/// Commit identities and the change feed's bounds from either family of transaction-id functions:
/// PostgreSQL 13's `pg_current_xact_id()` family, or the older `txid_current()` family that
/// engines based on an older PostgreSQL have. Both run here, on one PostgreSQL 15 server.
@Suite("PostgreSQL transaction-id functions")
struct PostgresTransactionFunctionsTests {
    static let mapping = ObjectMapping<Document>(idField: "id", encode: { $0 }, decode: { $0 })
    static let families: [(clock: CommitClock, other: CommitClock)] = [(.xact, .txid), (.txid, .xact)]

    /// The statements the store builds with a transaction-id function in them, for `clock`: a row
    /// inserted, put, and replaced at a version, then the outbox row, its size and the `NOTIFY`.
    static func statements(_ clock: CommitClock) throws -> [String] {
        let layout = TableLayout(
            name: "notes", idField: "id", tag: 7,
            indexes: [StoredIndex(definition: IndexDefinition("n"), column: 1, declared: true)])
        let row = try PreparedRow(["id": "a", "n": 1], id: "a", layout: layout)
        let operations: [RowOperation] = [
            .insert(row, layout, expectingAbsent: false), .upsert(row, layout, version: nil),
            .upsert(row, layout, version: 12)
        ]
        var texts = try operations.flatMap { try RowStatements($0, clock: clock).statements.map(\.sql) }
        var changes = CollectionChanges(collection: "notes")
        changes.inserted = ["a"]
        texts += Outbox.record([changes], time: Date(), notify: true, clock: clock).statements.map(\.sql)
        return texts
    }

    @Test("the statements built for each family call only that family's functions")
    func statementTexts() throws {
        for (clock, other) in Self.families {
            let texts = try Self.statements(clock)
            try #require(texts.count == 6, "\(texts)")
            for text in texts[0..<4] { #expect(text.contains(clock.transactionID), "\(text)") }
            #expect(texts[5] == "SELECT pg_notify('dsk_changes', \(clock.notifyPayload))")
            let expressions = [clock.transactionID, clock.snapshotXmin, clock.snapshotXmax, clock.notifyPayload]
            for text in texts + expressions {
                for function in other.functions { #expect(!text.contains(function), "\(text) calls \(function)") }
            }
            for expression in expressions {
                #expect(clock.functions.contains { expression.hasPrefix($0 + "(") }, "\(expression)")
            }
        }
        #expect(CommitClock.xact.snapshotXmin.contains("pg_current_snapshot()"))
        #expect(CommitClock.txid.snapshotXmax.contains("txid_current_snapshot()"))
    }

    @Test("automatic takes the xact family when complete, else txid; a forced family must be complete")
    func choice() throws {
        let xact = Set(CommitClock.xact.functions)
        let txid = Set(CommitClock.txid.functions)
        #expect(try CommitClock.choose(.automatic, available: xact.union(txid), server: "") == .xact)
        #expect(try CommitClock.choose(.automatic, available: txid, server: "") == .txid)
        #expect(try CommitClock.choose(.txid, available: xact.union(txid), server: "") == .txid)
        #expect(try CommitClock.choose(.xact, available: xact, server: "") == .xact)
        // A family missing one function is not used: automatic falls back to the other.
        #expect(try CommitClock.choose(.automatic, available: txid.union(["pg_current_xact_id"]), server: "") == .txid)

        let neither = #expect(throws: DataStoreError.self) {
            try CommitClock.choose(.automatic, available: ["pg_current_xact_id"], server: "postgresql://db/app")
        }
        #expect(neither?.code == .unsupported)
        let message = neither?.message ?? ""
        #expect(message.contains("postgresql://db/app"), "\(message)")
        for function in ["pg_current_snapshot()", "pg_snapshot_xmin()", "txid_current()", "txid_snapshot_xmax()"] {
            #expect(message.contains(function), "\(message) does not name \(function)")
        }
        #expect(!message.contains("pg_current_xact_id()"), "\(message) names a function the server has")

        let forced = #expect(throws: DataStoreError.self) {
            try CommitClock.choose(.txid, available: xact.union(["txid_current"]), server: "")
        }
        #expect(forced?.code == .unsupported)
        #expect(forced?.message.contains("txid_current_snapshot()") == true)
        #expect(forced?.message.contains("txid_current()") == false)
        #expect(forced?.message.contains("pg_") == false, "\(forced?.message ?? "")")
    }

    @Test(
        "the server has both families; automatic picks xact, the option forces txid",
        .enabled(if: PostgresTestServer.isConfigured, PostgresTestServer.skipReason))
    func detection() async throws {
        let available = try CommitClock.available(on: try Connection(""))
        #expect(
            available
                == Set(
                    CommitClock.xact.functions + CommitClock.txid.functions
                        + [CommitClock.xact.statusFunction, CommitClock.txid.statusFunction]))
        let automatic = try await PostgresTestServer.store()
        defer { automatic.close() }
        #expect(automatic.changeSource.clock == .xact)
        let older = try await PostgresTestServer.store(options: PostgresStore.Options(transactionIDFunctions: .txid))
        defer { older.close() }
        #expect(older.changeSource.clock == .txid)
    }

    @Test(
        "both families give the same transaction id, snapshot bounds and payload, in one statement",
        .enabled(if: PostgresTestServer.isConfigured, PostgresTestServer.skipReason))
    func sameValues() throws {
        let connection = try Connection("")
        let (xact, txid) = (CommitClock.xact, CommitClock.txid)
        let pairs = [
            (xact.transactionID, txid.transactionID), (xact.snapshotXmin, txid.snapshotXmin),
            (xact.snapshotXmax, txid.snapshotXmax), (xact.notifyPayload, txid.notifyPayload)
        ]
        let select = "SELECT " + pairs.map { "(\($0.0))::text, (\($0.1))::text" }.joined(separator: ", ")
        try connection.execute("BEGIN")
        // The first statement's first column assigns the transaction its id; the second
        // statement's snapshot, taken after, sees it running; the third's, after it committed, past it.
        let first = try connection.execute(select)
        let second = try connection.execute(select)
        try connection.execute("COMMIT")
        let third = try connection.execute(select)
        for result in [first, second, third] {
            let values = (0..<pairs.count * 2).map { result.text(0, $0) }
            for pair in 0..<pairs.count {
                #expect(
                    values[2 * pair] != nil && values[2 * pair] == values[2 * pair + 1], "\(pairs[pair]): \(values)")
            }
        }
        let id = try #require(first.text(0, 0).flatMap { Int64($0) })
        #expect(second.text(0, 0) == first.text(0, 0) && second.text(0, 6) == "\(id)")
        #expect(try #require(second.text(0, 2).flatMap { Int64($0) }) <= id)
        #expect(try #require(third.text(0, 4).flatMap { Int64($0) }) > id)
        #expect(try #require(third.text(0, 0).flatMap { Int64($0) }) > id)
    }

    /// A store with the `txid` family forced and one with the default, and a collection both write.
    static func stores() async throws -> (older: PostgresStore, current: PostgresStore, name: String) {
        let older = try await PostgresTestServer.store(options: PostgresStore.Options(transactionIDFunctions: .txid))
        let current = try await PostgresTestServer.store()
        return (older, current, PostgresTestServer.uniqueName("txid"))
    }

    /// Commits on `store`'s collection `name` from the feed after `start` until `count` arrived,
    /// then checks that nothing more of `name` follows: each commit exactly once.
    static func feed(_ store: PostgresStore, _ name: String, after start: Int, count: Int) async throws -> [CommitEvent]
    {
        var events: [CommitEvent] = []
        for try await event in try store.changes(after: CommitID(rawValue: start))
        where event.changes.contains(where: { $0.collection == name }) {
            events.append(event)
            if events.count == count { break }
        }
        let rest = try store.changeSource.readPage(after: events.last?.commit.rawValue ?? start, limit: 10_000)
        #expect(!rest.events.contains { $0.changes.contains { $0.collection == name } })
        return events
    }

    @Test(
        "with txid forced, writes from both stores come in one feed, in commit order, once, alike from both",
        .enabled(if: PostgresTestServer.isConfigured, PostgresTestServer.skipReason))
    func writesAndFeed() async throws {
        let (older, current, name) = try await Self.stores()
        defer { older.close() }
        defer { current.close() }
        let mine = try await older.collection(name, mapping: Self.mapping, indexes: [IndexDefinition("n")])
        let theirs = try await current.collection(name, mapping: Self.mapping, indexes: [IndexDefinition("n")])
        let start = try older.changeSource.lastCommit()
        var acknowledged: [CommitID] = []
        for n in 0..<6 {
            let context = n.isMultiple(of: 2) ? older.newContext() : current.newContext()
            try context.add(["id": .int(Int64(n)), "n": .int(Int64(n % 3))], to: n.isMultiple(of: 2) ? mine : theirs)
            acknowledged.append(try #require(try await context.save()))
        }
        _ = try await mine.put(id: 1, object: ["n": 9])
        _ = try await mine.remove(id: 2)
        #expect(acknowledged == acknowledged.sorted() && Set(acknowledged).count == 6)

        let fromOlder = try await Self.feed(older, name, after: start, count: 8)
        let fromCurrent = try await Self.feed(current, name, after: start, count: 8)
        #expect(fromOlder.map(\.commit) == fromCurrent.map(\.commit))
        #expect(Array(fromOlder.map(\.commit).prefix(6)) == acknowledged)
        #expect(fromOlder.map(\.commit) == fromOlder.map(\.commit).sorted())
        let inserted: [[Value]] = (0..<6).map { [.int(Int64($0))] }
        #expect(Array(fromOlder.map { $0.changes.flatMap(\.inserted) }.prefix(6)) == inserted)
        #expect(fromOlder[6].changes.flatMap(\.updated) == [1] && fromOlder[7].changes.flatMap(\.removed) == [2])
        // Every row's version is the commit that wrote it, whichever family read the id.
        let versions = try TestSQL.run(
            "SELECT t.version::text FROM \(try TestSQL.table(of: name)) t WHERE id = ANY($1::bytea[]) ORDER BY t.version",
            [.byteaArray([try mine.layout.idKey(0), try mine.layout.idKey(3)])])
        #expect(versions == ["\(acknowledged[0].rawValue)", "\(acknowledged[3].rawValue)"])
        let queried = try await mine.query(params: ["n": 0], options: nil)
        #expect(queried.count == 2)
        #expect(try await theirs.query(params: ["n": 0], options: nil).count == queried.count)
    }

    @Test(
        "with txid forced, a save over a record changed underneath is a conflict, across both families",
        .enabled(if: PostgresTestServer.isConfigured, PostgresTestServer.skipReason))
    func conflicts() async throws {
        let (older, current, name) = try await Self.stores()
        defer { older.close() }
        defer { current.close() }
        let mine = try await older.collection(name, mapping: Self.mapping)
        let theirs = try await current.collection(name, mapping: Self.mapping)
        _ = try await mine.add(object: ["id": "shared", "v": 1])
        for (reader, readerCollection, writerCollection) in [(older, mine, theirs), (current, theirs, mine)] {
            let context = reader.newContext()
            _ = try context.get(id: "shared", from: readerCollection)
            try context.put(id: "shared", object: ["v": "mine"], in: readerCollection)
            _ = try await writerCollection.put(id: "shared", object: ["v": "theirs"])
            let error = await #expect(throws: DataStoreError.self) { try await context.save() }
            #expect(error?.code == .conflict, "\(String(describing: error))")
            #expect(try await readerCollection.get(id: "shared")["v"] == "theirs")
        }
        // Nothing changed underneath: the version one family wrote is the one the other checks.
        for (reader, collection) in [(older, mine), (current, theirs)] {
            let context = reader.newContext()
            _ = try context.get(id: "shared", from: collection)
            try context.put(id: "shared", object: ["v": "saved"], in: collection)
            let commit = try #require(try await context.save())
            #expect(try await collection.get(id: "shared")["v"] == "saved")
            // A replacement at a version writes the new commit's id, not the version it checked.
            let version = try TestSQL.run(
                "SELECT version::text FROM \(try TestSQL.table(of: name)) WHERE id = $1",
                [.bytes(try collection.layout.idKey("shared"))])
            #expect(version == ["\(commit.rawValue)"])
        }
    }

    @Test(
        "with txid forced, statistics, the resume bound and NOTIFY's payload agree with the default's",
        .enabled(if: PostgresTestServer.isConfigured, PostgresTestServer.skipReason))
    func statisticsAndBounds() async throws {
        let (older, current, name) = try await Self.stores()
        defer { older.close() }
        defer { current.close() }
        let listener = try Connection("")
        try listener.execute("LISTEN \(Outbox.channel)")
        let notes = try await older.collection(name, mapping: Self.mapping)
        let start = try older.changeSource.lastCommit()
        let context = older.newContext()
        try context.add(["id": "a"], to: notes)
        let commit = try #require(try await context.save())
        _ = try await Self.feed(older, name, after: start, count: 1)

        var payloads: [String] = []
        for _ in 0..<40 where !payloads.contains("\(commit.rawValue)") {
            payloads += try listener.notifications(waitingUpTo: .milliseconds(250))
        }
        #expect(payloads.contains("\(commit.rawValue)"))

        // The horizon only moves forward, and the feed has delivered the commit, so it is past it.
        let before = try current.statistics()
        let middle = try older.statistics()
        let after = try current.statistics()
        #expect(before.lastCommit >= commit.rawValue)
        #expect(before.lastCommit <= middle.lastCommit && middle.lastCommit <= after.lastCommit)
        #expect(middle.retainedCommits > 0)
        #expect(middle.collections.first { $0.name == name }?.documents == 1)
        #expect(after.collections.first { $0.name == name }?.documents == 1)

        let olderNext = try older.changeSource.nextCommit()
        let currentNext = try current.changeSource.nextCommit()
        #expect(commit.rawValue < olderNext && olderNext <= currentNext)
        let beyond = #expect(throws: DataStoreError.self) {
            try older.changes(after: CommitID(rawValue: currentNext + 1_000_000))
        }
        #expect(beyond?.code == .invalidValue)
    }
}
