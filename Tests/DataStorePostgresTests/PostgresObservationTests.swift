import DataStoreCore
import Foundation
import Testing

@testable import DataStoreKit
@testable import DataStorePostgres
@testable import DataStoreEngine

/// Observations on PostgreSQL skip the refreshes a commit cannot need, as on LMDB: the change
/// feed names the ids each commit touched, and one statement over them tells whether any matches.
@Suite("PostgreSQL observation refreshes", .enabled(if: PostgresTestServer.isConfigured, PostgresTestServer.skipReason))
struct PostgresObservationTests {
    static let mapping = ObjectMapping<Document>(idField: "id", encode: { $0 }, decode: { $0 })

    @Test(
        "without a limit, a commit whose documents were not results and do not match refreshes nothing",
        .timeLimit(.minutes(5)))
    func skipsNonMatchingCommits() async throws {
        let store = try await PostgresTestServer.store()
        defer { store.close() }
        let notes = try await store.collection(PostgresTestServer.uniqueName("skips"), mapping: Self.mapping)
        _ = try await notes.add(object: ["id": "a", "type": "mail"])
        _ = try await notes.add(object: ["id": "c", "type": "chat"])
        var iterator = try notes.observe(params: ["type": "mail"], options: nil).makeAsyncIterator()
        #expect(try await iterator.next()?.map { $0["id"] } == ["a"])
        // A refresh may come first from an earlier commit the feed delivers late (a transaction
        // of another test held its horizon back): the results converge on the new one.
        let next = Task { [iterator] in
            var iterator = iterator
            var seen = try await iterator.next()?.map { $0["id"] }
            while seen == ["a"] { seen = try await iterator.next()?.map { $0["id"] } }
            return seen
        }
        _ = try await notes.put(id: "c", object: ["id": "c", "type": "chat", "text": "still chat"])
        // The wake-up for the chat commit is looked at and dropped; only then does a mail arrive.
        while store.observations.skippedRefreshes < 1 { try await Task.sleep(for: .milliseconds(1)) }
        _ = try await notes.add(object: ["id": "b", "type": "mail"])
        #expect(try await next.value == ["a", "b"])
        // A result that stops matching is a change, and so is a document that starts to match.
        var again = try notes.observe(params: ["type": "mail"], options: nil).makeAsyncIterator()
        #expect(try await again.next()?.map { $0["id"] } == ["a", "b"])
        _ = try await notes.put(id: "a", object: ["id": "a", "type": "chat"])
        #expect(try await Self.next(&again, after: ["a", "b"]) == ["b"])
        _ = try await notes.put(id: "c", object: ["id": "c", "type": "mail"])
        #expect(try await Self.next(&again, after: ["b"]) == ["b", "c"])
    }

    @Test(
        "with a limit every commit runs the query again (its ids are not every match), yielding only changes",
        .timeLimit(.minutes(5)))
    func limitRefreshesEveryCommit() async throws {
        let store = try await PostgresTestServer.store()
        defer { store.close() }
        let notes = try await store.collection(PostgresTestServer.uniqueName("limited"), mapping: Self.mapping)
        _ = try await notes.add(object: ["id": "a", "type": "mail"])
        var iterator = try notes.observe(params: ["type": "mail"], options: ["limit": 1]).makeAsyncIterator()
        #expect(try await iterator.next()?.map { $0["id"] } == ["a"])
        let next = Task { [iterator] in
            var iterator = iterator
            return try await iterator.next()?.first?["n"]
        }
        _ = try await notes.add(object: ["id": "c", "type": "chat"])
        // The refresh runs, finds the same results, and yields nothing.
        while store.observations.unchangedRefreshes < 1 { try await Task.sleep(for: .milliseconds(1)) }
        #expect(store.observations.skippedRefreshes == 0)
        _ = try await notes.put(id: "a", object: ["id": "a", "type": "mail", "n": 1])
        #expect(try await next.value == 1)
    }

    /// The next results of `iterator` that differ from `previous` (late deliveries of earlier
    /// commits may refresh to the same results first).
    static func next(
        _ iterator: inout QueryObservation<Document>.Iterator, after previous: [Value?]
    ) async throws -> [Value?]? {
        var seen = try await iterator.next()?.map { $0["id"] }
        while seen == previous { seen = try await iterator.next()?.map { $0["id"] } }
        return seen
    }
}
