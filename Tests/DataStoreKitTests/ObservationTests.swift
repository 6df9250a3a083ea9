// Live query results: current results first, a refresh after each commit that touched the
// collection, bursts coalesced, cancellation and close ending observations without leftovers.
import DataStoreCore
import Dispatch
import Foundation
import Synchronization
import Testing
@testable import DataStoreKit
@testable import DataStoreEngine

@Suite("Query observation")
struct ObservationTests {
    @Test("current results first, then the results after each commit to the collection, as query gives them")
    func agreesWithQuery() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let notes = try await temporary.store.collection(Note.self, idField: "id")
        let others = try await temporary.store.collection(Note.self, name: "Other", idField: "id")
        _ = try await notes.add(object: note("a", type: "mail"))
        let params: [String: Value] = ["type": "mail"]
        var iterator = try notes.observe(params: params, options: ["sort": "id"]).makeAsyncIterator()
        #expect(try await iterator.next()?.map(\.id) == ["a"])
        // A commit to another collection refreshes nothing: the next results show the one after it.
        _ = try await others.add(object: note("x", type: "mail"))
        _ = try await notes.add(object: note("b", type: "mail"))
        let second = try #require(try await iterator.next())
        #expect(second.map(\.id) == ["a", "b"])
        _ = try await notes.put(id: "a", object: note("a", type: "chat"))
        let third = try #require(try await iterator.next())
        #expect(third == (try await notes.query(params: params, options: ["sort": "id"])))
        #expect(third.map(\.id) == ["b"])
    }

    @Test(
        "a refresh whose results are the last ones, byte for byte, yields nothing; the next change yields",
        .timeLimit(.minutes(5)))
    func unchangedResultsAreNotYielded() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let store = temporary.store
        let notes = try await store.collection(Note.self, idField: "id")
        _ = try await notes.add(object: note("a", type: "mail"))
        // With a limit the results' ids are not every match: every commit runs the query again.
        var iterator = try notes.observe(params: ["type": "mail"], options: ["limit": 1]).makeAsyncIterator()
        #expect(try await iterator.next()?.map(\.id) == ["a"])
        let next = Task { [iterator] in
            var iterator = iterator
            return try await iterator.next()?.map(\.message)
        }
        _ = try await notes.add(object: note("c", type: "chat"))
        _ = try await notes.put(id: "a", object: note("a", type: "mail"))
        while store.observations.unchangedRefreshes < 1 { try await Task.sleep(nanoseconds: 1_000_000) }
        _ = try await notes.put(id: "a", object: note("a", type: "mail", message: "edited"))
        #expect(try await next.value == ["edited"])
    }

    @Test(
        "without a limit, a commit whose documents were not results and do not match refreshes nothing",
        .timeLimit(.minutes(5)))
    func skipsNonMatchingCommits() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let store = temporary.store
        let notes = try await store.collection(Note.self, idField: "id")
        _ = try await notes.add(object: note("a", type: "mail"))
        _ = try await notes.add(object: note("c", type: "chat"))
        var iterator = try notes.observe(params: ["type": "mail"], options: nil).makeAsyncIterator()
        #expect(try await iterator.next()?.map(\.id) == ["a"])
        let next = Task { [iterator] in
            var iterator = iterator
            return try await iterator.next()?.map(\.id)
        }
        _ = try await notes.put(id: "c", object: note("c", type: "chat", message: "still chat"))
        // The wake-up for the chat commit is looked at and dropped; only then does a mail arrive.
        while store.observations.skippedRefreshes < 1 { try await Task.sleep(nanoseconds: 1_000_000) }
        _ = try await notes.add(object: note("b", type: "mail"))
        #expect(try await next.value == ["a", "b"])
        // A result that stops matching is a change.
        var again = try notes.observe(params: ["type": "mail"], options: nil).makeAsyncIterator()
        #expect(try await again.next()?.map(\.id) == ["a", "b"])
        _ = try await notes.put(id: "a", object: note("a", type: "chat"))
        #expect(try await again.next()?.map(\.id) == ["b"])
    }

    @Test("a consumer that falls behind a burst gets the latest results once, not a backlog")
    func coalescing() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let notes = try await temporary.store.collection(Note.self, idField: "id")
        var iterator = try notes.observe(params: nil, options: nil).makeAsyncIterator()
        #expect(try await iterator.next()?.isEmpty == true)
        var last = CommitID(rawValue: 0)
        for index in 0..<50 {
            let context = temporary.store.newContext()
            _ = try context.add(note("burst\(index)"), to: notes)
            last = try #require(try await context.save())
        }
        // Once the log reader has passed the burst, one refresh is pending, whatever its length.
        while temporary.store.observations.processedThrough < last.rawValue {
            try await Task.sleep(nanoseconds: 1_000_000)
        }
        #expect(try await iterator.next()?.count == 50)
        _ = try await notes.add(object: note("after"))
        #expect(try await iterator.next()?.count == 51, "the next results are the newest, not a queued older one")
    }

    @Test("cancelling observers leaves no observer, waiter or reader task behind (counters)")
    func cancellationLeaksNothing() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let store = temporary.store
        let notes = try await store.collection(Note.self, idField: "id")
        let started = Counter()
        let tasks = (0..<20).map { _ in
            Task {
                var refreshes = 0
                for try await _ in try notes.observe(params: nil, options: nil) {
                    if refreshes == 0 { started.increment() }
                    refreshes += 1
                }
                return refreshes
            }
        }
        while started.value < 20 { try await Task.sleep(nanoseconds: 1_000_000) }
        #expect(store.observations.observerCount == 20)
        let reader = try #require(store.observations.tailTask)
        for task in tasks { task.cancel() }
        for task in tasks { #expect(try await task.value >= 1) }
        #expect(store.observations.observerCount == 0)
        #expect(store.observations.tailTask == nil)
        await reader.value
        #expect(store.changeLog.signal.waiterCount == 0)
        // The store still serves new observers afterwards.
        var again = try notes.observe(params: nil, options: nil).makeAsyncIterator()
        #expect(try await again.next()?.isEmpty == true)
    }

    @Test("observations and feeds start and read while a write transaction is held open", .timeLimit(.minutes(5)))
    func startDuringALongWrite() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let store = temporary.store
        let notes = try await store.collection(Note.self, idField: "id")
        _ = try await notes.add(object: note("a"))
        let inside = Counter()
        let release = DispatchSemaphore(value: 0)
        let long = Task {
            try await store.writer.submit(estimatedBytes: 0) { transaction -> Int in
                inside.increment()
                release.wait()
                return 0
            }
        }
        while inside.value == 0 { try await Task.sleep(nanoseconds: 1_000_000) }
        // The writer is inside its transaction: nothing here may wait for it.
        var results = try notes.observe(params: nil, options: nil).makeAsyncIterator()
        #expect(try await results.next()?.map(\.id) == ["a"])
        let replayed = try await ChangeFeedTests.collect(try store.changes(after: nil).recordedSoFar, count: 10)
        #expect(replayed.count == 1)
        release.signal()
        _ = try await long.value
    }

    @Test("closing the store ends every observation")
    func closeEnds() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let notes = try await temporary.store.collection(Note.self, idField: "id")
        let started = Counter()
        let task = Task {
            var count = 0
            for try await _ in try notes.observe(params: nil, options: nil) {
                count += 1
                started.increment()
            }
            return count
        }
        while started.value < 1 { try await Task.sleep(nanoseconds: 1_000_000) }
        temporary.store.close()
        #expect(try await task.value >= 1)
        var late = try notes.observe(params: nil, options: nil).makeAsyncIterator()
        #expect(try await late.next() == nil)
    }

    @Test("a malformed query fails at once, by name")
    func badQuery() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let notes = try await temporary.store.collection(Note.self, idField: "id")
        let error = #expect(throws: DataStoreError.self) { try notes.observe(params: nil, options: ["limit": "x"]) }
        #expect(error?.code == .invalidOption)
    }
}

/// A thread-safe count for tests.
final class Counter: Sendable {
    private let count = Mutex(0)
    var value: Int { count.withLock { $0 } }
    func increment() { count.withLock { $0 += 1 } }
}
