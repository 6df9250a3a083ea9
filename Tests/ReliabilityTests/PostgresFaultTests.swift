import DataStoreCore
import DataStoreKit
import DataStorePostgres
import Foundation
import TestSupport
import Testing

/// Faults injected into a PostgreSQL server while three processes save units of work on it:
/// backends terminated (`pg_terminate_backend`) every second or so, and the server stopped as a
/// crash would (`pg_ctl stop -m immediate`) and restarted twice. Afterwards every acknowledged
/// unit is present whole, none reported as a conflict (or as failed) is present at all, the hot
/// counters count exactly the units that landed, and every process saved again after the faults.
@Suite(
    "PostgreSQL faults from outside, several processes saving",
    .enabled(if: TestCluster.isAvailable, "no PostgreSQL tools: DATASTORE_PG_BINDIR is not set (run `make test`)"))
struct PostgresFaultTests {
    static let mapping = ObjectMapping<Document>(idField: "id", encode: { $0 }, decode: { $0 })

    @Test("terminated backends and two immediate stops during saves from three processes")
    func faultsDuringSaves() async throws {
        let cluster = try await onOwnThread { try TestCluster() }
        defer { cluster.remove() }
        let seeding = try await PostgresStore.open(url: cluster.url)
        let seeded = try await seeding.collection("items", mapping: Self.mapping, indexes: [IndexDefinition("tag")])
        try await seeded.add(contentsOf: (0..<4).map { ["id": .string("hot-\($0)"), "n": 0] })
        seeding.close()

        // A fault about every second: backends terminated, and the server stopped as a crash
        // would at the fifth and the twelfth (counted, not timed, so a slow machine has both).
        let faults = environmentInt("DATASTORE_PG_FAULTS", default: 16)
        let stop = cluster.directory + "/stop-saving"
        let savers = try (0..<3).map { _ in
            try ChildProcess(["postgres-saves", cluster.url, "--stop", stop, "--workers", "4"])
        }
        var lastFault = Date()
        var crashes = 0
        for fault in 0..<faults {
            try await Task.sleep(for: .milliseconds(Int.random(in: 600...1_400)))
            if fault == 4 || fault == 11 {
                try await onOwnThread { try cluster.crash() }
                try await Task.sleep(for: .milliseconds(500))
                try await onOwnThread { try cluster.start() }
                crashes += 1
            } else {
                _ = try? await TestSQL.terminateBackends(cluster.url, count: 3)
            }
            lastFault = Date()
        }
        // Quiet: each process must save again (at most a minute), then all stop.
        let resumeBy = Date().addingTimeInterval(60)
        while Date() < resumeBy && !savers.allSatisfy({ Self.savedAfter(lastFault, $0.lines) }) {
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(FileManager.default.createFile(atPath: stop, contents: nil))
        for saver in savers {
            #expect(await saver.waitForExit(timeout: 120), "a saver did not finish: \(saver.lines.suffix(3))")
        }
        #expect(crashes == 2)

        let store = try await PostgresStore.open(url: cluster.url)
        defer { store.close() }
        let items = try await store.documentCollection("items")
        var parts: [String: Int] = [:]
        var counters: [String: Int] = [:]
        for document in try await items.all() {
            if let tag = document["tag"]?.stringValue { parts[tag, default: 0] += 1 }
            if let id = document["id"]?.stringValue, id.hasPrefix("hot-") {
                counters[id] = Int(document["n"]?.intValue ?? -1)
            }
        }
        var landed: [String: Int] = [:]
        var acknowledged = 0
        var outcomes: [String: Int] = [:]
        for saver in savers {
            for line in saver.lines {
                let words = line.split(separator: " ").map(String.init)
                guard words.count == 4, words[0] == "ACK" || words[0] == "ERR" else { continue }
                let (tag, hot) = (words[1], words[2])
                let present = parts[tag] ?? 0
                #expect(present == 0 || present == 3, "unit \(tag) is partly there: \(present) of 3")
                if words[0] == "ACK" {
                    acknowledged += 1
                    #expect(present == 3, "acknowledged unit \(tag) is missing")
                } else {
                    outcomes[words[3], default: 0] += 1
                    // Only an unknown outcome may have landed; any other error wrote nothing.
                    #expect(
                        words[3] == "outcomeUnknown" || present == 0, "unit \(tag) failed with \(words[3]) yet landed")
                }
                if present == 3 { landed[hot, default: 0] += 1 }
            }
            #expect(
                Self.savedAfter(lastFault, saver.lines),
                "a saver saved nothing after the last fault: \(saver.lines.suffix(3))")
        }
        // Every unit that landed raised its counter once: none lost, none applied twice.
        for hot in (0..<4).map({ "hot-\($0)" }) {
            #expect(
                counters[hot] == landed[hot] ?? 0, "\(hot) is \(counters[hot] ?? -1), \(landed[hot] ?? 0) units landed")
        }
        #expect(acknowledged >= 30, "only \(acknowledged) units acknowledged; errors: \(outcomes)")
        #expect(try store.check(collections: ["items"]).isEmpty)
    }
}

extension PostgresFaultTests {
    /// Whether `lines` acknowledge a save made after `time`.
    static func savedAfter(_ time: Date, _ lines: [String]) -> Bool {
        lines.contains { line in
            let words = line.split(separator: " ")
            return words.count == 4 && words[0] == "ACK" && (Double(words[3]) ?? 0) > time.timeIntervalSince1970
        }
    }
}

/// SQL against a test cluster.
enum TestSQL {
    /// Terminates up to `count` backends of the server at `url` other than the asking one.
    static func terminateBackends(_ url: String, count: Int) async throws -> Int {
        let run = try await runProcess(
            (TestCluster.bindir ?? "/usr/bin") + "/psql",
            [
                url, "-Atc",
                "SELECT count(pg_terminate_backend(pid)) FROM (SELECT pid FROM pg_stat_activity WHERE pid <> "
                    + "pg_backend_pid() AND backend_type = 'client backend' ORDER BY random() LIMIT \(count)) AS chosen"
            ])
        return Int(run.output.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
    }
}
