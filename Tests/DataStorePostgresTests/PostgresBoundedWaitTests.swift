import DataStoreCore
import DataStoreKit
import Foundation
import ModelConformance
import Synchronization
import Testing

@testable import DataStorePostgres

/// A server that stops answering (every process of it stopped, its sockets open) holds no call
/// past its bound: opening, reading and saving fail with typed errors naming the bound, and the
/// store works again once the server answers.
@Suite(
    "PostgreSQL: bounded waits",
    .enabled(if: PostgresTestServer.isConfigured && TestCluster.isAvailable, PostgresTestServer.skipReason))
struct PostgresBoundedWaitTests {
    static let mapping = ObjectMapping<Document>(idField: "id", encode: { $0 }, decode: { $0 })

    /// Short bounds, so the test waits seconds.
    static var options: PostgresStore.Options {
        var options = PostgresStore.Options(readers: 2)
        options.connectTimeout = .seconds(1)
        options.statementTimeout = .seconds(1)
        options.saveTimeout = .seconds(4)
        return options
    }

    /// How `body` ended, or `nil` when it had not within `limit` (a hang: it is left running).
    static func outcome<R: Sendable>(within limit: Duration, _ body: @escaping @Sendable () async throws -> R) async
        -> Result<R, any Error>?
    {
        let finished = Mutex<Result<R, any Error>?>(nil)
        let task = Task {
            let result: Result<R, any Error>
            do { result = .success(try await body()) } catch { result = .failure(error) }
            finished.withLock { $0 = result }
        }
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            if let result = finished.withLock({ $0 }) { return result }
            try? await Task.sleep(for: .milliseconds(20))
        }
        _ = task
        return nil
    }

    /// The code of a failure, after expecting one.
    static func code<R>(_ result: Result<R, any Error>?, _ what: String) -> DataStoreError.Code? {
        guard let result else {
            Issue.record("\(what) did not return within its bound")
            return nil
        }
        guard case .failure(let error) = result else {
            Issue.record("\(what) succeeded against a stopped server")
            return nil
        }
        guard let error = error as? DataStoreError else {
            Issue.record("\(what): \(error)")
            return nil
        }
        return error.code
    }

    @Test("a stopped server: open, reads and saves end with .timedOut (or a save's unknown outcome), then work again")
    func stoppedServer() async throws {
        let cluster = try await onOwnThread { try TestCluster() }
        defer { cluster.remove() }
        let store = try await PostgresStore.open(url: cluster.url, options: Self.options)
        defer { store.close() }
        let collection = try await store.collection("waits", mapping: Self.mapping)
        _ = try await collection.add(object: ["id": "a"])
        cluster.freeze()
        let open = await Self.outcome(within: .seconds(60)) {
            try await PostgresStore.open(url: cluster.url, options: Self.options)
        }
        #expect(Self.code(open, "opening") == .timedOut)
        if case .failure(let error as DataStoreError)? = open {
            #expect(error.message.contains("connectTimeout"), "\(error)")
        }
        let read = await Self.outcome(within: .seconds(60)) { try await collection.get(id: "a") }
        #expect(Self.code(read, "a read") == .timedOut)
        let count = await Self.outcome(within: .seconds(60)) { try await collection.count(params: [:]) }
        #expect(Self.code(count, "a count") == .timedOut)
        let save = await Self.outcome(within: .seconds(60)) { try await collection.add(object: ["id": "b"]) }
        let saveCode = Self.code(save, "a save")
        #expect(saveCode == .timedOut || saveCode == .outcomeUnknown, "\(String(describing: saveCode))")
        cluster.thaw()
        // The store resumes: the next save and read succeed on connections made anew.
        _ = try await collection.add(object: ["id": "c"])
        #expect(try await collection.get(id: "c")["id"] == "c")
        // A save that timed out wrote nothing.
        if saveCode == .timedOut { #expect(try await collection.count(params: ["id": "b"]) == 0) }
    }

    @Test("a save queued behind a stopped server past saveTimeout is withdrawn: .timedOut, nothing written")
    func queuedSaveWithdrawn() async throws {
        let cluster = try await onOwnThread { try TestCluster() }
        defer { cluster.remove() }
        var options = Self.options
        // The writer holds its batch longer than the save may wait.
        options.statementTimeout = .seconds(90)
        options.saveTimeout = .seconds(1)
        let store = try await PostgresStore.open(url: cluster.url, options: options)
        defer { store.close() }
        let collection = try await store.collection("queued", mapping: Self.mapping)
        cluster.freeze()
        let first = Task { try await collection.add(object: ["id": "first"]) }
        // The first is taken into a batch (held by the stopped server) before the second queues.
        while store.writer.takenChangeSets < 1 { try await Task.sleep(for: .milliseconds(5)) }
        let second = await Self.outcome(within: .seconds(60)) { try await collection.add(object: ["id": "second"]) }
        #expect(Self.code(second, "a queued save") == .timedOut)
        if case .failure(let error as DataStoreError)? = second {
            #expect(error.message.contains("nothing of it was written"), "\(error)")
        }
        let firstCode = Self.code(await first.result, "the save in flight")
        #expect(firstCode == .outcomeUnknown || firstCode == .timedOut, "\(String(describing: firstCode))")
        cluster.thaw()
        _ = try await collection.add(object: ["id": "third"])
        #expect(try await collection.count(params: ["id": "second"]) == 0)
    }
}
