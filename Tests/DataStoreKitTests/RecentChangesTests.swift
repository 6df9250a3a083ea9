// The change log's newest records wait in the main database and move to `_changes` in groups:
// where each record is, that readers see one log in commit order across both, that trimming
// reaches them, and that the store's format is raised before the first one is kept.
import DataStoreCore
import Foundation
import LMDB
import Testing
@testable import DataStoreKit

@Suite("Recent change records")
struct RecentChangesTests {
    /// The commits of the recent records and of those in `_changes`, each in key order.
    static func layout(_ store: DataStore) throws -> (recent: [Int], logged: [Int]) {
        let log = store.changeLog
        let database = try #require(log.database)
        let recent = try #require(log.recent)
        return try log.environment.read { transaction in
            var recentCommits: [Int] = []
            try recent.visit(from: 0, in: transaction) { commit, _, _ in
                recentCommits.append(commit)
                return true
            }
            var logged: [Int] = []
            try transaction.withCursor(on: database) { cursor in
                while let entry = try cursor.move(.next) {
                    let commit = try entry.key.withUnsafeBytes { try ChangeRecord.commit(ofKey: $0) }
                    if commit > 0 { logged.append(commit) }
                }
            }
            return (recentCommits, logged)
        }
    }

    /// Saves `ids` one document per commit and returns the commits.
    static func saveEach(_ ids: some Sequence<String>, in store: DataStore, _ notes: StoreCollection<Note>)
        async throws -> [Int]
    {
        var commits: [Int] = []
        for id in ids {
            let context = store.newContext()
            try context.add(note(id), to: notes)
            commits.append(try #require(try await context.save()).rawValue)
        }
        return commits
    }

    @Test("a small commit's record waits in the main database; once the oldest is 16 commits old, all move, in order")
    func recentRecordsMoveInGroups() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let notes = try await temporary.store.collection(Note.self, idField: "id")
        let logEntries = {
            try temporary.store.changeLog.environment.read { transaction in
                try transaction.count(of: #require(temporary.store.changeLog.database))
            }
        }
        let entriesBefore = try logEntries()
        var commits: [Int] = []
        for index in 0..<RecentChanges.commitSpan {
            commits += try await Self.saveEach(["n\(index)"], in: temporary.store, notes)
            let (recent, logged) = try Self.layout(temporary.store)
            #expect(recent == commits && logged.isEmpty, "after \(index + 1) commits")
            #expect(try logEntries() == entriesBefore, "_changes untouched")
        }
        // One commit more: the oldest is 16 commits old, so the 16 move and the new one waits.
        commits += try await Self.saveEach(["last"], in: temporary.store, notes)
        let (recent, logged) = try Self.layout(temporary.store)
        #expect(logged == Array(commits.dropLast()))
        #expect(recent == [commits.last!])
        let events = try temporary.store.changeLog.page(after: nil, limit: 100).events
        #expect(events.map(\.commit.rawValue) == commits)
        #expect(events.map { $0.changes.flatMap(\.inserted) } == (0..<16).map { [.string("n\($0)")] } + [["last"]])
    }

    @Test("a long record moves the recent ones first, then goes to _changes itself")
    func longRecordGoesToTheLog() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let notes = try await temporary.store.collection(Note.self, idField: "id")
        var commits = try await Self.saveEach(["a", "b", "c"], in: temporary.store, notes)
        let many = (0..<10).map { note("bulk-\($0)-\(String(repeating: "x", count: 20))") }
        let context = temporary.store.newContext()
        for item in many { try context.add(item, to: notes) }
        commits.append(try #require(try await context.save()).rawValue)
        #expect(try Self.layout(temporary.store) == ([], commits))
        commits += try await Self.saveEach(["d"], in: temporary.store, notes)
        #expect(try Self.layout(temporary.store) == ([commits.last!], Array(commits.dropLast())))
        let events = try temporary.store.changeLog.page(after: nil, limit: 100).events
        #expect(events.map(\.commit.rawValue) == commits)
        #expect(events[3].changes.first?.inserted.count == 10)
    }

    @Test("pages read one log across _changes and the recent records, from any position, at any limit")
    func pagesSpanBoth() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let notes = try await temporary.store.collection(Note.self, idField: "id")
        let commits = try await Self.saveEach((0..<21).map { "n\($0)" }, in: temporary.store, notes)
        let (recent, logged) = try Self.layout(temporary.store)
        #expect(!recent.isEmpty && !logged.isEmpty, "both hold records")
        #expect(logged + recent == commits)
        for start in [nil] + commits.map(Optional.some) {
            let expected = commits.filter { $0 > (start ?? 0) }
            for limit in [1, 2, 5, 16, 30] {
                let page = try temporary.store.changeLog.page(after: start, limit: limit)
                #expect(
                    page.events.map(\.commit.rawValue) == Array(expected.prefix(limit)), "after \(start ?? 0), \(limit)"
                )
                #expect(page.isFull == (page.events.count == limit))
            }
        }
        // A feed, too, sees each commit once in order.
        #expect(
            try await ChangeFeedTests.collect(try temporary.store.changes(after: nil), count: 21).map(\.commit.rawValue)
                == commits)
    }

    @Test("trimming by size reaches the recent records when _changes holds none")
    func trimmingReachesRecentRecords() async throws {
        let path = NSTemporaryDirectory() + "datastorekit-recent-trim-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: path) }
        do {
            let store = try DataStore.open(path: path)
            let notes = try await store.collection(Note.self, idField: "id")
            _ = try await Self.saveEach(["a", "b", "c", "d"], in: store, notes)
            #expect(try Self.layout(store).logged.isEmpty)
            store.close()
        }
        var tight = DataStore.Options()
        tight.changeFeed.maxBytes = 1
        let store = try DataStore.open(path: path, options: tight)
        defer { store.close() }
        let notes = try await store.collection(Note.self, idField: "id")
        let newest = try await Self.saveEach(["e"], in: store, notes)
        #expect(try Self.layout(store) == (newest, []))
        let events = try store.changeLog.page(after: nil, limit: 100).events
        #expect(events.map { $0.changes.flatMap(\.inserted) } == [["e"]])
        do {
            _ = try store.changes(after: CommitID(rawValue: 1))
            Issue.record("resuming before the trimmed recent records did not fail")
        } catch {
            #expect(error.code == .changesTrimmed)
            #expect((error.underlying as? ChangesTrimmed)?.oldestAvailable?.rawValue == newest.first)
        }
    }

    @Test("the first recent record raises the store to format 3, and a covering index does not lower it")
    func formatIsRaised() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let notes = try await temporary.store.collection(Note.self, idField: "id")
        #expect(try temporary.store.statistics().formatVersion == 1)
        _ = try await Self.saveEach(["a"], in: temporary.store, notes)
        #expect(try temporary.store.statistics().formatVersion == 3)
        _ = try await CoveringIndexTests.notes(temporary.store, covering: true, name: "Covered")
        #expect(try temporary.store.statistics().formatVersion == 3)
        _ = try await Self.saveEach(["b"], in: temporary.store, notes)
        let known = temporary.store.changeLog.formatAllowsRecent.load(ordering: .relaxed)
        #expect(known, "read back as 3, the format is not read again")
    }

    @Test("a backup, compacted or not, keeps the recent records and the log reads the same")
    func backupKeepsRecentRecords() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let notes = try await temporary.store.collection(Note.self, idField: "id")
        let commits = try await Self.saveEach((0..<20).map { "n\($0)" }, in: temporary.store, notes)
        #expect(!(try Self.layout(temporary.store).recent.isEmpty))
        for compact in [false, true] {
            let copy = NSTemporaryDirectory() + "datastorekit-recent-backup-\(UUID().uuidString)"
            defer { try? FileManager.default.removeItem(atPath: copy) }
            try FileManager.default.createDirectory(atPath: copy, withIntermediateDirectories: true)
            try temporary.store.backup(to: copy, compact: compact)
            let restored = try DataStore.open(path: copy)
            defer { restored.close() }
            #expect(try Self.layout(restored) == (try Self.layout(temporary.store)), "compact: \(compact)")
            let events = try restored.changeLog.page(after: nil, limit: 100).events
            #expect(events.map(\.commit.rawValue) == commits, "compact: \(compact)")
        }
    }

    @Test("in a full map that may not grow, a commit with no room to move the recent records commits holding them")
    func fullMapHoldsRecentRecords() async throws {
        let temporary = try TemporaryStore(
            options: .init(mapSize: 256 * 1024, writerLimits: .init(maxMapSize: 256 * 1024)))
        defer { temporary.remove() }
        let notes = try await temporary.store.collection(
            Note.self, idField: "id", indexes: [IndexDefinition("created_ts")])
        let stored = try await fillMap(of: temporary.store, with: notes)
        let before = try Self.layout(temporary.store)
        #expect(before.recent.count >= 1)
        // The first remove finds no room to move the recent records, so it commits holding them.
        _ = try await notes.remove(id: .string(stored[0]))
        #expect(try Self.layout(temporary.store).recent.count > RecentChanges.commitSpan)
        for id in stored[1..<20] { _ = try await notes.remove(id: .string(id)) }
        _ = try await notes.add(object: note("late", ts: 1e9))
        let events = try temporary.store.changeLog.page(after: nil, limit: 10_000).events
        #expect(
            events.suffix(21).map { $0.changes.first?.removed.first ?? $0.changes.first?.inserted.first }
                == stored.prefix(20).map { .string($0) } + [.string("late")])
        let after = try Self.layout(temporary.store)
        #expect(after.logged + after.recent == events.map(\.commit.rawValue), "one log, in commit order")
        try expectConsistent(temporary.store)
    }

    @Test(
        "a newer record that an older build appended to _changes meanwhile: moves still commit, and reads keep commit order"
    )
    func olderBuildAppendsMeanwhile() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let notes = try await temporary.store.collection(Note.self, idField: "id")
        var commits = try await Self.saveEach(["a", "b", "c"], in: temporary.store, notes)
        // What a build without recent records writes: its commit's record appended to _changes.
        let log = try #require(temporary.store.changeLog.database)
        let foreign = try temporary.store.environment.write { transaction in
            var change = CollectionChanges(collection: "Note")
            change.inserted = ["elsewhere"]
            let record = ChangeRecord(
                commit: CommitID(rawValue: transaction.transactionID), milliseconds: 0, changes: [change])
            try transaction.put(record.encoded(), forKey: ChangeRecord.key(for: record.commit.rawValue), in: log)
            return record.commit.rawValue
        }
        commits.append(foreign)
        #expect(try Self.layout(temporary.store) == (Array(commits.prefix(3)), [foreign]))
        commits += try await Self.saveEach((0..<RecentChanges.commitSpan).map { "n\($0)" }, in: temporary.store, notes)
        let (recent, logged) = try Self.layout(temporary.store)
        #expect(!logged.isEmpty && logged.contains(commits[0]), "the recent records moved")
        #expect((logged + recent).sorted() == commits)
        let events = try temporary.store.changeLog.page(after: nil, limit: 100).events
        #expect(events.map(\.commit.rawValue) == commits)
        for limit in [1, 3, 4, 5] {
            let page = try temporary.store.changeLog.page(after: commits[1], limit: limit)
            #expect(page.events.map(\.commit.rawValue) == Array(commits.dropFirst(2).prefix(limit)))
        }
    }

    @Test(
        "the oldest recent record the writer keeps in memory follows its own commits, and is read again after a commit made around it"
    )
    func boundsKeptInMemory() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let store = temporary.store
        let notes = try await store.collection(Note.self, idField: "id")
        /// The writer's bounds, which must name the oldest recent record after each of its commits.
        func expectBoundsHold(_ comment: Comment) throws {
            let bounds = try #require(store.changeLog.recentBounds.withLock { $0 }, comment)
            let layout = try Self.layout(store)
            #expect(bounds.committed && bounds.commit == layout.recent.last, comment)
            #expect(bounds.oldest == layout.recent.first, comment)
        }
        var commits: [Int] = []
        for index in 0..<20 {
            commits += try await Self.saveEach(["n\(index)"], in: store, notes)
            try expectBoundsHold("after save \(index)")
        }
        // Around the writer, as another process would: the recent records move to _changes.
        let log = try #require(store.changeLog.database)
        let recent = try #require(store.changeLog.recent)
        try store.environment.write { transaction in try recent.moveAll(to: log, in: &transaction) }
        #expect(try Self.layout(store).recent.isEmpty)
        // Trusting the bounds from before would count the next record's age from a moved one.
        commits += try await Self.saveEach(["after-move"], in: store, notes)
        try expectBoundsHold("after the move made around the writer")
        #expect(try Self.layout(store).recent == [commits.last!])
        // A save that fails in the writer commits nothing: the bounds stay those of the last commit.
        let late = store.newContext()
        try late.add(note("raced"), to: notes)
        commits += try await Self.saveEach(["raced"], in: store, notes)
        await #expect(throws: DataStoreError.self) { try await late.save() }
        try expectBoundsHold("after a failed save")
        for index in 0..<RecentChanges.commitSpan {
            commits += try await Self.saveEach(["late\(index)"], in: store, notes)
            try expectBoundsHold("after late save \(index)")
        }
        let events = try store.changeLog.page(after: nil, limit: 100).events
        #expect(events.map(\.commit.rawValue) == commits)
    }

    @Test("the documented key of a recent record (docs/encoding.md, Store layout)")
    func documentedKey() {
        #expect(RecentChanges.key(for: 7) == [0xFF, 0, 0, 0, 0, 0, 0, 0, 7])
        #expect(RecentChanges.key(for: 0x0102_0304_0506_0708) == [0xFF, 1, 2, 3, 4, 5, 6, 7, 8])
        let commit = RecentChanges.key(for: 7).withUnsafeBytes { try? RecentChanges.commit(ofKey: $0) }
        #expect(commit == 7)
        #expect(Array("i/Note/ts".utf8).withUnsafeBytes { try? RecentChanges.commit(ofKey: $0) } == nil)
    }

    @Test("with the feed off nothing is kept, and records left from before stay readable")
    func feedOffKeepsNothing() async throws {
        let path = NSTemporaryDirectory() + "datastorekit-recent-off-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let before: [Int]
        do {
            let store = try DataStore.open(path: path)
            let notes = try await store.collection(Note.self, idField: "id")
            before = try await Self.saveEach(["a", "b"], in: store, notes)
            store.close()
        }
        do {
            var off = DataStore.Options()
            off.changeFeed = .disabled
            let store = try DataStore.open(path: path, options: off)
            let notes = try await store.collection(Note.self, idField: "id")
            _ = try await Self.saveEach(["c"], in: store, notes)
            store.close()
        }
        let store = try DataStore.open(path: path)
        defer { store.close() }
        #expect(try Self.layout(store) == (before, []))
        #expect(try store.changeLog.page(after: nil, limit: 10).events.map(\.commit.rawValue) == before)
    }
}
