import DataStoreCore
import DataStoreKit
import Foundation
import Synchronization
import Testing

@testable import DataStorePostgres

/// Awaited reads: the statement sent from the caller's thread, the result read by the event
/// thread, no thread held while the server answers; whatever that path cannot do falls to a
/// reader thread.
@Suite("PostgreSQL awaited reads", .enabled(if: PostgresTestServer.isConfigured, PostgresTestServer.skipReason))
struct PostgresAwaitedReadTests {
    static let mapping = ObjectMapping<Document>(idField: "id", encode: { $0 }, decode: { $0 })

    /// A store with one reader and a collection of 40 documents indexed on `n`, each read shape
    /// run once so that its statement is prepared on the pooled connection.
    static func prepared() async throws -> (PostgresStore, PostgresCollection<Document>) {
        let store = try await PostgresTestServer.store(options: PostgresStore.Options(readers: 1, awaitedReads: true))
        let collection = try await store.collection(
            PostgresTestServer.uniqueName("awaited"), mapping: mapping, indexes: [IndexDefinition("n")])
        try await collection.add(contentsOf: (0..<40).map { ["id": .int(Int64($0)), "n": .int(Int64($0 % 10))] })
        _ = try await collection.get(id: 1)
        _ = try await collection.query(params: ["n": 3], options: ["limit": 2])
        return (store, collection)
    }

    @Test("once its statement is prepared, a get or a one-statement query is answered on the event thread")
    func awaitedOnceprepared() async throws {
        let (store, collection) = try await Self.prepared()
        defer { store.close() }
        let (awaited, onThreads) = (
            store.pool.awaitedReads.load(ordering: .relaxed), store.pool.threadReads.load(ordering: .relaxed)
        )
        for id in 0..<10 {
            #expect(try await collection.get(id: .int(Int64(id)))["n"] == .int(Int64(id % 10)))
            let found = try await collection.query(params: ["n": .int(Int64(id))], options: ["limit": 2])
            #expect(found.map { $0["id"] } == [.int(Int64(id)), .int(Int64(id + 10))])
        }
        #expect(store.pool.awaitedReads.load(ordering: .relaxed) == awaited + 20)
        #expect(store.pool.threadReads.load(ordering: .relaxed) == onThreads)
        await #expect(throws: DataStoreError.self) { _ = try await collection.get(id: "absent") }
    }

    @Test("a statement the session lost, or a connection the server dropped, falls to a reader thread and is mended")
    func lostStatementAndConnection() async throws {
        let (store, collection) = try await Self.prepared()
        defer { store.close() }
        // The session loses its statements behind the cache's back.
        let connection = try #require(store.pool.takeIdle())
        try connection.execute("DEALLOCATE ALL")
        store.pool.release(connection)
        let onThreads = store.pool.threadReads.load(ordering: .relaxed)
        #expect(try await collection.get(id: 7)["n"] == 7)
        #expect(store.pool.threadReads.load(ordering: .relaxed) == onThreads + 1)
        #expect(try await collection.get(id: 8)["n"] == 8)
        #expect(store.pool.threadReads.load(ordering: .relaxed) == onThreads + 1)
        // The server ends the pooled connection's session: the next read reconnects and answers.
        let pooled = try #require(store.pool.takeIdle())
        let pid = try #require(pooled.execute("SELECT pg_backend_pid()::int8").int(0, 0))
        store.pool.release(pooled)
        try TestSQL.run("SELECT pg_terminate_backend($1::int8::int4)::text", [.int(pid)])
        #expect(try await collection.query(params: ["n": 4], options: ["limit": 1]).map { $0["id"] } == [.int(4)])
        #expect(try await collection.get(id: 9)["n"] == 9)
    }

    @Test("reads waiting for the server hold none of the cooperative pool's threads")
    func noThreadHeld() async throws {
        // Three times as many as the cooperative pool has threads, all held up by the server.
        let waiting = 3 * ProcessInfo.processInfo.activeProcessorCount
        let holder = try Connection("")
        try holder.execute("SELECT pg_advisory_lock(424242)")
        let connections = try (0..<waiting).map { _ in try Connection("") }
        // Prepared with blocking calls first, so that only the awaited run is left.
        for connection in connections {
            try connection.execute("PREPARE wait AS SELECT pg_advisory_lock_shared(424242)::text")
        }
        let counts = Counts()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for connection in connections {
                group.addTask {
                    _ = try await connection.executePreparedAwaiting("wait", [])
                    counts.finished.add(1, ordering: .relaxed)
                }
            }
            // Every read reaches the server and waits there at once: none holds a thread.
            while ReadEvents.shared.inFlight < waiting { try await Task.sleep(for: .milliseconds(5)) }
            #expect(counts.finished.load(ordering: .relaxed) == 0)
            try holder.execute("SELECT pg_advisory_unlock(424242)")
            try await group.waitForAll()
        }
        #expect(counts.finished.load(ordering: .relaxed) == waiting)
    }

    @Test("an answer that comes within the window is read on the caller's thread")
    func answeredOnCaller() async throws {
        let connection = try Connection("")
        try connection.execute("PREPARE one AS SELECT 1::int8")
        let gate = CallerWaits(limit: 1)
        for _ in 0..<5 {
            let result = try await connection.executePreparedAwaiting("one", [], pollingFor: .seconds(30), gate: gate)
            #expect(result.int(0, 0) == 1)
        }
        #expect(gate.answered.load(ordering: .relaxed) == 5)
        #expect(gate.current == 0)
        // Without a window, or with the gate full, the event thread reads the answer.
        _ = try await connection.executePreparedAwaiting("one", [], gate: gate)
        #expect(gate.enter())
        _ = try await connection.executePreparedAwaiting("one", [], pollingFor: .seconds(30), gate: gate)
        gate.leave()
        #expect(gate.answered.load(ordering: .relaxed) == 5)
    }

    @Test("a server that does not answer within the window holds the caller's thread no longer")
    func slowAnswerHandedOver() async throws {
        let holder = try Connection("")
        try holder.execute("SELECT pg_advisory_lock(424243)")
        let connection = try Connection("")
        try connection.execute("PREPARE wait AS SELECT pg_advisory_lock_shared(424243)::text")
        let gate = CallerWaits(limit: 1)
        let read = Task {
            try await connection.executePreparedAwaiting("wait", [], pollingFor: .milliseconds(5), gate: gate).rowCount
        }
        // The window passes while the server holds the read: the caller gives its place back.
        while gate.handedOver.load(ordering: .relaxed) == 0 { try await Task.sleep(for: .milliseconds(1)) }
        #expect(gate.current == 0)
        try holder.execute("SELECT pg_advisory_unlock(424243)")
        #expect(try await read.value == 1)
        #expect(gate.answered.load(ordering: .relaxed) == 0)
    }

    @Test("a statement that last answered after the window is handed over at once, and waited for again later")
    func slowStatementSkipsTheWait() async throws {
        let gate = CallerWaits(limit: 1)
        let pool = ConnectionPool(
            conninfo: "", maxIdle: 1, awaitedReads: true, callerPoll: .milliseconds(250), callerWaits: gate)
        defer { pool.close() }
        let readers = ReaderThreads(count: 1)
        defer { readers.close() }
        let sql = SQLText("SELECT pg_sleep($1::int8 / 1000.0)::text")
        // Reads answered on the awaited path; the others went to a reader thread.
        var awaited = 0
        func read(sleeping milliseconds: Int64) async throws -> Int {
            if let result = try await pool.awaitResult(sql, [.int(milliseconds)], what: { "sleeping" }) {
                awaited += 1
                return result.rowCount
            }
            return try await readers.run {
                try pool.read("sleeping") { try $0.executePrepared(sql, [.int(milliseconds)]).rowCount }
            }
        }
        // The first run prepares the statement on a reader thread; the second, slower than the
        // window, waits it out and is handed over.
        #expect(try await read(sleeping: 0) == 1)
        #expect(try await read(sleeping: 500) == 1)
        #expect(gate.handedOver.load(ordering: .relaxed) == 1)
        // Its last answer was slow: the next run does not wait on this thread at all.
        #expect(try await read(sleeping: 0) == 1)
        #expect(gate.handedOver.load(ordering: .relaxed) == 1 && gate.answered.load(ordering: .relaxed) == 0)
        // However a loaded machine times the runs handed over, a run waits on its caller again
        // within every eight (StatementAnswerTimeTests has the rule without a server).
        var runs = 0
        while gate.answered.load(ordering: .relaxed) + gate.handedOver.load(ordering: .relaxed) == 1 {
            #expect(try await read(sleeping: 0) == 1)
            runs += 1
            if runs > StatementCache.waitAgainEvery { break }
        }
        #expect(runs <= StatementCache.waitAgainEvery)
        #expect(awaited == 2 + runs)
    }

    /// Reads finished, from the tasks that run them.
    final class Counts: Sendable {
        let finished = Atomic<Int>(0)
    }

    @Test("without awaited reads every read runs on a reader thread")
    func threadsWhenOff() async throws {
        let store = try await PostgresTestServer.store(options: PostgresStore.Options(readers: 1, awaitedReads: false))
        defer { store.close() }
        let collection = try await store.collection(PostgresTestServer.uniqueName("threads"), mapping: Self.mapping)
        try await collection.add(contentsOf: (0..<4).map { ["id": .int(Int64($0))] })
        for id in 0..<4 { #expect(try await collection.get(id: .int(Int64(id)))["id"] == .int(Int64(id))) }
        #expect(try await collection.count(params: nil) == 4)
        #expect(store.pool.awaitedReads.load(ordering: .relaxed) == 0)
    }

    @Test("reads waiting for a slot when the store closes throw .closed, as do later ones")
    func slotsClose() async throws {
        let slots = ReadSlots(count: 1)
        try await slots.acquire()
        let waiting = Task { try await slots.acquire() }
        slots.close()
        await #expect(throws: DataStoreError.self) { try await waiting.value }
        await #expect(throws: DataStoreError.self) { try await slots.acquire() }
        slots.release()
    }
}
