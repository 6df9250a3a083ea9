// The durable change feed: replayed from disk then live, in commit order, exactly once, across
// close and reopen; trimmed in bounded steps with a typed error for a trimmed position.
import DataStoreCore
import Foundation
import Testing
@testable import DataStoreKit
@testable import DataStoreEngine

@Suite("Change feed")
struct ChangeFeedTests {
    @Test("each event's commit is the id its save was acknowledged with, and the version its documents got")
    func commitIDsMatch() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let notes = try await temporary.store.collection(Note.self, idField: "id")
        var acknowledged: [CommitID] = []
        for id in ["a", "b", "c"] {
            let context = temporary.store.newContext()
            try context.add(note(id), to: notes)
            acknowledged.append(try #require(try await context.save()))
        }
        let events = try await Self.collect(try temporary.store.changes(after: nil), count: 3)
        #expect(events.map(\.commit) == acknowledged)
        #expect(events.map { $0.changes.flatMap(\.inserted) } == [["a"], ["b"], ["c"]])
        let stored = try temporary.store.changeLog.environment.read { transaction in
            try notes.storage.idKey("b").withUnsafeBytes { key in
                try transaction.withValue(forKey: key, in: notes.storage.records) { try RecordVersion.read($0) }
            }
        }
        #expect(stored == acknowledged[1].rawValue)
    }

    @Test("close and reopen: a consumer resuming after its last commit sees every later commit once, in order")
    func resumeAcrossReopen() async throws {
        let path = NSTemporaryDirectory() + "datastorekit-feed-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: path) }
        var handled: [CommitEvent] = []
        for round in 0..<3 {
            let store = try DataStore.open(path: path)
            let notes = try await store.collection(Note.self, idField: "id")
            let feed = try store.changes(after: handled.last?.commit)
            // Commits made before the consumer starts are replayed from disk, later ones live.
            _ = try await notes.add(object: note("r\(round)-before"))
            let reader = Task { try await Self.collect(feed, count: 3) }
            _ = try await notes.put(
                id: .string("r\(round)-before"), object: note("r\(round)-before", message: "changed"))
            _ = try await notes.add(object: note("r\(round)-after"))
            let events = try await reader.value
            #expect(events.first?.changes.first?.inserted == [.string("r\(round)-before")])
            handled += events
            store.close()
        }
        let commits = handled.map(\.commit)
        #expect(commits == commits.sorted() && Set(commits).count == 9, "commit order, each once")
        #expect(handled.flatMap { $0.changes.flatMap(\.inserted) }.count == 6)
        #expect(handled.flatMap { $0.changes.flatMap(\.updated) }.count == 3)
        // A fresh consumer from the oldest commit sees exactly what the resuming one saw.
        let store = try DataStore.open(path: path)
        defer { store.close() }
        #expect(try await Self.collect(try store.changes(after: nil), count: 9) == handled)
    }

    @Test("folding the feed gives exactly the ids a query returns")
    func feedAgreesWithQuery() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let notes = try await temporary.store.collection(Note.self, idField: "id")
        var random = SystemRandomNumberGenerator()
        var commits = 0
        for step in 0..<60 {
            let id = "n\(Int.random(in: 0..<12, using: &random))"
            if Bool.random(using: &random), (try? await notes.remove(id: .string(id))) != nil {
                commits += 1
            } else if step % 7 == 0 {
                let context = temporary.store.newContext()
                _ = try context.put(id: .string(id), object: note(id), in: notes)
                _ = try context.put(id: .string("\(id)x"), object: note("\(id)x"), in: notes)
                _ = try await context.save()
                commits += 1
            } else {
                _ = try await notes.put(id: .string(id), object: note(id))
                commits += 1
            }
        }
        var ids: Set<Value> = []
        for event in try await Self.collect(try temporary.store.changes(after: nil), count: commits) {
            for change in event.changes {
                ids.formUnion(change.inserted)
                ids.formUnion(change.updated)
                ids.subtract(change.removed)
            }
        }
        #expect(ids == Set(try await notes.all().map { Value.string($0.id!) }))
    }

    @Test("past the size bound the writer trims at most 32 records a commit; a trimmed position is a typed error")
    func trimming() async throws {
        let path = NSTemporaryDirectory() + "datastorekit-trim-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: path) }
        var kept = DataStore.Options()
        kept.changeFeed.maxBytes = nil
        var first: CommitID?
        do {
            let store = try DataStore.open(path: path, options: kept)
            let notes = try await store.collection(Note.self, idField: "id")
            _ = try await notes.add(contentsOf: (0..<40).map { note("bulk\($0)") })
            for index in 0..<39 { _ = try await notes.put(id: .string("bulk\(index)"), object: note("bulk\(index)")) }
            first = try #require(try await Self.collect(try store.changes(after: nil), count: 1).first?.commit)
            store.close()
        }
        var tight = DataStore.Options()
        tight.changeFeed.maxBytes = 1
        let store = try DataStore.open(path: path, options: tight)
        defer { store.close() }
        let notes = try await store.collection(Note.self, idField: "id")
        _ = try await notes.add(object: note("after"))
        // 40 recorded, 1 added, 32 trimmed by that one commit.
        let remaining = try store.changeLog.page(after: nil, limit: 100).events
        #expect(remaining.count == 9)
        #expect(remaining.last?.changes.first?.inserted == ["after"])
        var trimmedThrough: CommitID?
        do {
            _ = try store.changes(after: first)
            Issue.record("resuming after a trimmed commit did not fail")
        } catch {
            #expect(error.code == .changesTrimmed)
            let trimmed = try #require(error.underlying as? ChangesTrimmed)
            #expect(trimmed.requested == first)
            #expect(trimmed.oldestAvailable == remaining.first?.commit)
            #expect(error.message.contains("\(remaining.first!.commit)"))
            trimmedThrough = trimmed.trimmedThrough
        }
        // Resuming right after the newest trimmed commit is fine.
        #expect(try await Self.collect(try store.changes(after: trimmedThrough), count: 9) == remaining)
        // Later commits trim on, keeping the newest.
        for index in 0..<3 { _ = try await notes.add(object: note("later\(index)")) }
        let tail = try store.changeLog.page(after: nil, limit: 100).events
        #expect(tail.count == 1, "each commit trimmed up to 32 more, down to the newest")
        #expect(tail.first?.changes.first?.inserted == ["later2"])
    }

    @Test("past the age bound the writer trims the old records, and goes on trimming as they age")
    func trimmingByAge() async throws {
        let path = NSTemporaryDirectory() + "datastorekit-age-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: path) }
        var kept = DataStore.Options(durability: .none)
        kept.changeFeed.maxAge = nil
        do {
            let store = try DataStore.open(path: path, options: kept)
            let notes = try await store.collection(Note.self, idField: "id")
            // More commits than wait among the recent records: the old ones are in both places.
            for index in 0..<20 { _ = try await notes.add(object: note("old\(index)")) }
            store.close()
        }
        // A bound in the future makes every record but the newest too old, deterministically.
        var aged = DataStore.Options(durability: .none)
        aged.changeFeed.maxAge = .seconds(-3_600)
        aged.changeFeed.maxBytes = nil
        let store = try DataStore.open(path: path, options: aged)
        defer { store.close() }
        let notes = try await store.collection(Note.self, idField: "id")
        #expect(try store.changeLog.page(after: nil, limit: 100).events.count == 20)
        _ = try await notes.add(object: note("new"))
        let left = try store.changeLog.page(after: nil, limit: 100).events
        #expect(left.map { $0.changes.flatMap(\.inserted) } == [["new"]])
        _ = try await notes.add(object: note("newer"))
        #expect(
            try store.changeLog.page(after: nil, limit: 100).events.map { $0.changes.flatMap(\.inserted) } == [
                ["newer"]
            ])
    }

    @Test("a consumer that falls behind the trimming gets the typed error once its buffered page is used up")
    func trimmedUnderAConsumer() async throws {
        let path = NSTemporaryDirectory() + "datastorekit-behind-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: path) }
        var kept = DataStore.Options(durability: .none)
        kept.changeFeed.maxBytes = nil
        let first = try DataStore.open(path: path, options: kept)
        let notes = try await first.collection(Note.self, idField: "id")
        for index in 0..<300 { _ = try await notes.put(id: .string("n\(index % 5)"), object: note("n\(index % 5)")) }
        var iterator = try first.changes(after: nil).makeAsyncIterator()
        var delivered = [try #require(try await iterator.next())]
        first.close()
        var tight = DataStore.Options(durability: .none)
        tight.changeFeed.maxBytes = 1
        let second = try DataStore.open(path: path, options: tight)
        defer { second.close() }
        let again = try await second.collection(Note.self, idField: "id")
        for index in 0..<10 { _ = try await again.add(object: note("late\(index)")) }
        do {
            while let event = try await iterator.next() { delivered.append(event) }
            Issue.record("the feed ended without telling its consumer that commits were trimmed")
        } catch {
            #expect(error.code == .changesTrimmed)
            #expect((error.underlying as? ChangesTrimmed)?.requested == delivered.last?.commit)
        }
        #expect(delivered.count == ChangeFeed.pageSize, "the page read before the trimming, then the error")
    }

    @Test("a save that wrote nothing leaves a waiting feed parked, not reading in a loop", .timeLimit(.minutes(5)))
    func emptyCommitDoesNotSpin() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let store = temporary.store
        let notes = try await store.collection(Note.self, idField: "id")
        _ = try await notes.add(object: note("gone"))
        let waiting = Task { try await Self.collect(try store.changes(after: nil), count: 3) }
        while store.changeLog.signal.waiterCount == 0 { try await Task.sleep(nanoseconds: 1_000_000) }
        // Last writer wins: removing what is already gone commits, and writes nothing.
        let context = store.newContext(policy: .lastWriterWins)
        _ = try context.remove(id: "gone", from: notes)
        let readsBeforeRemove = store.changeLog.pageReads.load(ordering: .relaxed)
        _ = try await notes.remove(id: "gone")
        // The remove's wake-up runs on a pool thread: let the feed read that commit and park again
        // first, or its read would be counted against the empty save.
        while store.changeLog.pageReads.load(ordering: .relaxed) == readsBeforeRemove
            || store.changeLog.signal.waiterCount == 0
        {
            try await Task.sleep(nanoseconds: 1_000_000)
        }
        _ = try await context.save()
        while store.changeLog.signal.waiterCount == 0 { try await Task.sleep(nanoseconds: 1_000_000) }
        let reads = store.changeLog.pageReads.load(ordering: .relaxed)
        for _ in 0..<20 { try await Task.sleep(nanoseconds: 1_000_000) }
        #expect(
            store.changeLog.pageReads.load(ordering: .relaxed) - reads <= 1,
            "the feed woke for a commit that is not there")
        _ = try await notes.add(object: note("after"))
        #expect(try await waiting.value.count == 3)
    }

    @Test("resuming after a commit the store has not made is a named error")
    func futureCommit() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        #expect(throws: DataStoreError.self) { try temporary.store.changes(after: CommitID(rawValue: 1 << 40)) }
    }

    @Test("a feed ends on cancellation and after close, leaving no waiter")
    func endings() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let notes = try await temporary.store.collection(Note.self, idField: "id")
        let waiting = Task { try await Self.collect(try temporary.store.changes(after: nil), count: 1) }
        _ = try await notes.add(object: note("one"))
        #expect(try await waiting.value.count == 1)
        let idle = Task { try await Self.collect(try temporary.store.changes(after: nil), count: 5) }
        while temporary.store.changeLog.signal.waiterCount == 0 { try await Task.sleep(nanoseconds: 1_000_000) }
        idle.cancel()
        #expect(try await idle.value.count == 1, "the one commit, then the end")
        #expect(temporary.store.changeLog.signal.waiterCount == 0)
        let open = Task { try await Self.collect(try temporary.store.changes(after: nil), count: 5) }
        while temporary.store.changeLog.signal.waiterCount == 0 { try await Task.sleep(nanoseconds: 1_000_000) }
        temporary.store.close()
        #expect(try await open.value.count == 1)
    }

    /// The first `count` events of `feed`, or fewer when it ends first.
    static func collect(_ feed: ChangeFeed, count: Int) async throws -> [CommitEvent] {
        var events: [CommitEvent] = []
        guard count > 0 else { return events }
        for try await event in feed {
            events.append(event)
            if events.count == count { break }
        }
        return events
    }
}
