import TestSupport
import DataStoreCore
import DataStoreCrashHelper
import DataStoreKit
import Foundation
import LMDB
import Testing

/// A writer process killed with SIGKILL at random moments loses no acknowledged save, leaves no
/// half change set, and leaves every index entry matching its record.
///
/// `DATASTORE_CRASH_ROUNDS` (default 8) sets the number of kills; `DATASTORE_CRASH_SEED` repeats a run.
@Suite("Crash safety", .serialized)
struct CrashSafetyTests {
    @Test("SIGKILL at random moments: acknowledged saves survive whole, no change set is half applied, indexes match")
    func killedWriter() async throws {
        let rounds = environmentInt("DATASTORE_CRASH_ROUNDS", default: 8)
        let seed = UInt64(environmentInt("DATASTORE_CRASH_SEED", default: 20_240_611))
        var random = SeededGenerator(seed: seed)
        // A fresh store every 10 rounds keeps each round's verification (a full read and check)
        // bounded, so the cost of many rounds grows linearly.
        var path = temporaryStorePath("crash")
        var paths = [path]
        defer { for path in paths { try? FileManager.default.removeItem(atPath: path) } }

        var acknowledged: [Acknowledgement] = []
        var store: DataStore?
        var items: StoreCollection<CrashItem>?
        var totalAcknowledged = 0
        for round in 0..<rounds {
            if round > 0 && round % 10 == 0 {
                store?.close()
                (store, items, acknowledged) = (nil, nil, [])
                path = temporaryStorePath("crash")
                paths.append(path)
            }
            let child = try ChildProcess(["saves", path, "--workers", "8"])
            // Most kills land while saves stream; every fourth lands early, during open or the
            // first index builds.
            if round % 4 == 3 {
                try await Task.sleep(nanoseconds: UInt64.random(in: 0...150, using: &random) * 1_000_000)
            } else {
                let ready = try await child.waitForLine(startingWith: "READY")
                #expect(
                    ready != nil, "round \(round) (seed \(seed)): the helper never got ready: \(child.lines.suffix(3))")
                try await Task.sleep(nanoseconds: UInt64.random(in: 10...500, using: &random) * 1_000_000)
            }
            child.killNow()
            #expect(
                child.wasKilled,
                "round \(round) (seed \(seed)): the helper ended before the kill: \(child.lines.suffix(3))")
            let lines = child.lines
            #expect(
                !lines.contains { $0.hasPrefix("FATAL") }, "round \(round): \(lines.filter { $0.hasPrefix("FATAL") })")
            let acknowledgedNow = lines.compactMap { Acknowledgement(line: $0) }
            acknowledged += acknowledgedNow
            totalAcknowledged += acknowledgedNow.count

            // The child is dead; this process keeps the store open across rounds (LMDB allows
            // several processes on one environment, one open per process).
            if store == nil { store = try DataStore.open(path: path) }
            if items == nil { items = try await CrashWorkload.collection(in: store!) }
            let stored = try await items!.all()
            let problems = GroupVerifier.problems(stored: stored, acknowledged: acknowledged)
            #expect(problems.isEmpty, "round \(round) (seed \(seed)): \(problems.prefix(10))")
            let integrity = try store!.check()
            #expect(integrity.isEmpty, "round \(round) (seed \(seed)): \(integrity.prefix(10))")
            if !problems.isEmpty || !integrity.isEmpty { break }
        }
        #expect(totalAcknowledged > rounds, "too few saves were acknowledged to show anything (\(totalAcknowledged))")
        store?.close()
    }
}
