import TestSupport
import DataStoreCore
import DataStoreCrashHelper
@testable import DataStoreKit
import Foundation
import LMDB
import Testing

/// A process killed with SIGKILL while it compacts a collection leaves every record and index
/// entry byte for byte as it was: the compaction's one transaction commits whole or not at all.
///
/// `DATASTORE_CRASH_ROUNDS` (default 8) sets the number of kills; `DATASTORE_CRASH_SEED` repeats a run.
@Suite("Compaction crash safety", .serialized)
struct CompactionCrashTests {
    /// Every key and value of the collection's records and index databases, in key order.
    static func entries(of items: StoreCollection<CrashItem>, in store: DataStore) throws -> [[UInt8]] {
        try store.environment.read { transaction in
            var entries: [[UInt8]] = []
            for database in items.storage.databases {
                try transaction.walk(database) { key, value in
                    entries.append(Array(key))
                    entries.append(Array(value))
                    return true
                }
            }
            return entries
        }
    }

    @Test("SIGKILL while compacting: every record and index entry is as it was, and the indexes match")
    func killedCompaction() async throws {
        let rounds = environmentInt("DATASTORE_CRASH_ROUNDS", default: 8)
        let seed = UInt64(environmentInt("DATASTORE_CRASH_SEED", default: 20_261_206))
        var random = SeededGenerator(seed: seed)
        let path = temporaryStorePath("compaction-crash")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let store = try DataStore.open(path: path)
        defer { store.close() }
        let items = try await CrashWorkload.collection(in: store)
        // Groups saved in random tag order, so the compactions have pages to repack.
        let order = (0..<4_000).shuffled(using: &random)
        for start in stride(from: 0, to: order.count, by: 200) {
            _ = try await items.add(
                contentsOf: order[start..<start + 200].map { n in
                    CrashItem(tag: "t\(n)", of: 1, index: 0, removes: nil)
                })
        }
        let before = try Self.entries(of: items, in: store)

        var completed = 0
        for round in 0..<rounds {
            let child = try ChildProcess(["compact", path])
            let ready = try await child.waitForLine(startingWith: "READY")
            #expect(ready != nil, "round \(round) (seed \(seed)): the helper never got ready: \(child.lines.suffix(3))")
            try await Task.sleep(nanoseconds: UInt64.random(in: 5...400, using: &random) * 1_000_000)
            child.killNow()
            #expect(
                child.wasKilled,
                "round \(round) (seed \(seed)): the helper ended before the kill: \(child.lines.suffix(3))")
            completed += child.lines.filter { $0.hasPrefix("COMPACTED") }.count

            #expect(try Self.entries(of: items, in: store) == before, "round \(round) (seed \(seed))")
            let integrity = try store.check()
            #expect(integrity.isEmpty, "round \(round) (seed \(seed)): \(integrity.prefix(10))")
            if !integrity.isEmpty { break }
        }
        #expect(completed > 0, "no compaction finished before a kill, so none was shown to keep every byte")
    }
}
