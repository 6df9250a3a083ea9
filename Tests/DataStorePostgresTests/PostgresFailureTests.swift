import DataStoreCore
import DataStoreKit
import Foundation
import ModelConformance
import Synchronization
import Testing

@testable import DataStorePostgres

/// The server going away mid-batch: callers get a typed error, no change set is partly
/// applied, every acknowledged one is there after a restart, and the store reconnects.
@Suite(
    "PostgreSQL failures",
    .enabled(if: PostgresTestServer.isConfigured && TestCluster.isAvailable, PostgresTestServer.skipReason))
struct PostgresFailureTests {
    /// A store on `cluster`'s server and its collection `name` of plain documents.
    static func open(_ cluster: TestCluster, _ name: String, indexes: [IndexDefinition] = []) async throws
        -> (PostgresStore, PostgresCollection<Document>)
    {
        let store = try await PostgresStore.open(url: cluster.url)
        let mapping = ObjectMapping<Document>(idField: "id", encode: { $0 }, decode: { $0 })
        do { return (store, try await store.collection(name, mapping: mapping, indexes: indexes)) } catch {
            store.close()
            throw error
        }
    }

    @Test("pg_ctl stop -m immediate during batches: all-or-nothing change sets, acknowledged ones kept, reconnect")
    func serverCrashMidBatch() async throws {
        let cluster = try await onOwnThread { try TestCluster() }
        defer { cluster.remove() }
        let (store, collection) = try await Self.open(cluster, "crash", indexes: [IndexDefinition("group")])
        defer { store.close() }
        let savers = 16
        // Each saver adds change sets of four documents until one fails, so the crash always
        // finds saves in flight, however fast the machine; the cap ends the test if the server never stops.
        let cap = 5_000
        let crashed = CrashFlag()
        let outcomes = await withTaskGroup(of: [(Int, (any Error)?)].self) { group in
            for saver in 0..<savers {
                group.addTask {
                    var outcomes: [(Int, (any Error)?)] = []
                    for round in 0..<cap {
                        let n = round * savers + saver
                        let documents: [Document] = (0..<4).map {
                            ["id": .string("g\(n)-\($0)"), "group": .int(Int64(n))]
                        }
                        do {
                            try await collection.add(contentsOf: documents)
                            outcomes.append((n, nil))
                        } catch {
                            outcomes.append((n, error))
                            break
                        }
                        if crashed.isSet && round > cap / 2 { break }
                    }
                    return outcomes
                }
            }
            group.addTask {
                // Crash once some change sets are acknowledged and more are queued.
                while store.writerBatches.changeSets < 20 { await Task.yield() }
                defer { crashed.set() }
                do {
                    try await onOwnThread { try cluster.crash() }
                    return [(-1, nil)]
                } catch { return [(-1, error)] }
            }
            return await group.reduce(into: [Int: (any Error)?]()) { all, outcomes in
                for (n, error) in outcomes { all[n] = error }
            }
        }
        #expect(outcomes[-1] != nil && outcomes[-1]! == nil, "the server did not stop")
        let failures = outcomes.filter { $0.key >= 0 && $0.value != nil }
        #expect(failures.count == savers, "every saver ends at its first failure")
        for (_, error) in failures {
            // .outcomeUnknown: the server went away after the batch's COMMIT was sent.
            let code = (error as? DataStoreError)?.code
            #expect(code == .network || code == .outcomeUnknown, "\(String(describing: error))")
        }
        try await onOwnThread { try cluster.start() }
        // The store reconnects: a write after the restart succeeds.
        _ = try await collection.add(object: ["id": "after", "group": -1])
        var counts: [Int64: Int] = [:]
        for document in try await collection.all() { counts[document["group"]?.intValue ?? -2, default: 0] += 1 }
        var acknowledgedPresent = 0
        for (n, outcome) in outcomes where n >= 0 {
            let present = counts[Int64(n)] ?? 0
            #expect(present == 0 || present == 4, "change set \(n) is partly applied: \(present) of 4")
            if outcome == nil {
                #expect(present == 4, "acknowledged change set \(n) is missing")
                acknowledgedPresent += 1
            }
        }
        #expect(acknowledgedPresent >= 20)
        // Nothing was stored that no saver sent.
        #expect(counts.keys.allSatisfy { $0 == -1 || outcomes[Int($0)] != nil })
    }

    @Test("a server restarted while the writer's connection sat idle: the next save reconnects first and succeeds")
    func serverRestartWhileIdle() async throws {
        let cluster = try await onOwnThread { try TestCluster() }
        defer { cluster.remove() }
        let (store, collection) = try await Self.open(cluster, "idle")
        defer { store.close() }
        _ = try await collection.add(object: ["id": "before"])
        try await onOwnThread { try cluster.crash() }
        try await onOwnThread { try cluster.start() }
        // The writer's connection still looks good to libpq; the batch must not be sent on it.
        _ = try await collection.add(object: ["id": "after"])
        _ = try await collection.put(id: "before", object: ["id": "before", "n": 1])
        #expect(try await collection.all().count == 2)
        #expect(try await collection.get(id: "before")["n"] == .int(1))
    }
}

/// Set once the test's server has been stopped.
private final class CrashFlag: Sendable {
    private let value = Atomic<Bool>(false)
    var isSet: Bool { value.load(ordering: .relaxed) }
    func set() { value.store(true, ordering: .relaxed) }
}
