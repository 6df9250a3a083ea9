import DataStoreCore
import DataStoreKit
import Foundation
import Testing

@testable import DataStorePostgres

/// The server going away mid-batch: callers get a typed error, no change set is partly
/// applied, every acknowledged one is there after a restart, and the store reconnects.
@Suite(
    "PostgreSQL failures",
    .enabled(if: PostgresTestServer.isConfigured && TestCluster.isAvailable, PostgresTestServer.skipReason))
struct PostgresFailureTests {
    @Test("pg_ctl stop -m immediate during batches: all-or-nothing change sets, acknowledged ones kept, reconnect")
    func serverCrashMidBatch() async throws {
        let cluster = try TestCluster()
        defer { cluster.remove() }
        let store = try await PostgresStore.open(url: cluster.url)
        defer { store.close() }
        let mapping = ObjectMapping<Document>(idField: "id", encode: { $0 }, decode: { $0 })
        let collection = try await store.collection("crash", mapping: mapping, indexes: [IndexDefinition("group")])
        let groups = 1_000
        let outcomes = await withTaskGroup(of: (Int, (any Error)?).self) { group in
            for n in 0..<groups {
                group.addTask {
                    let documents: [Document] = (0..<4).map { ["id": .string("g\(n)-\($0)"), "group": .int(Int64(n))] }
                    do {
                        try await collection.add(contentsOf: documents)
                        return (n, nil)
                    } catch { return (n, error) }
                }
            }
            group.addTask {
                // Crash once some change sets are acknowledged and more are queued.
                while store.writerBatches.changeSets < 20 { await Task.yield() }
                do {
                    try cluster.crash()
                    return (-1, nil)
                } catch { return (-1, error) }
            }
            return await group.reduce(into: [Int: (any Error)?]()) { $0[$1.0] = $1.1 }
        }
        #expect(outcomes[-1] != nil && outcomes[-1]! == nil, "the server did not stop")
        let failures = outcomes.filter { $0.key >= 0 && $0.value != nil }
        #expect(!failures.isEmpty, "the crash came after every change set committed")
        for (_, error) in failures {
            #expect((error as? DataStoreError)?.code == .network, "\(String(describing: error))")
        }
        try cluster.start()
        // The store reconnects: a write after the restart succeeds.
        _ = try await collection.add(object: ["id": "after", "group": -1])
        var counts: [Int64: Int] = [:]
        for document in try await collection.all() { counts[document["group"]?.intValue ?? -2, default: 0] += 1 }
        var acknowledgedPresent = 0
        for n in 0..<groups {
            let present = counts[Int64(n)] ?? 0
            #expect(present == 0 || present == 4, "change set \(n) is partly applied: \(present) of 4")
            if outcomes[n] == nil || outcomes[n]! == nil {
                #expect(present == 4, "acknowledged change set \(n) is missing")
                acknowledgedPresent += 1
            }
        }
        #expect(acknowledgedPresent >= 20)
    }
}
