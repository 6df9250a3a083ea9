// What a run found, printed as stable aligned tables, or as JSON with --json.
import Foundation

/// A goal from issues 4, 5 and 7: minimum ratios of DataStoreKit to its peers.
struct Goal: Codable, Sendable {
    var minimumVersusRaw: Double?
    var minimumVersusSQLite: Double?

    /// Issue 18's goal for every read through `Codable`: at least SQLite's speed and close to raw LMDB's.
    static let issue18Read = Goal(minimumVersusRaw: 0.85, minimumVersusSQLite: 1)

    var text: String {
        [minimumVersusRaw.map { "≥\(fixed($0, 2))× raw" }, minimumVersusSQLite.map { "≥\(fixed($0, 1))× SQLite" }]
            .compactMap { $0 }.joined(separator: ", ")
    }
}

/// One workload measured on the three backends.
struct ThroughputRow: Encodable, Sendable {
    var workload: String
    var unit: String
    var dataStoreKit: Double
    var rawLMDB: Double
    var sqlite: Double
    /// Results each backend produced in the reference pass (documents returned or written).
    var results: [Int]
    /// Whether the three backends produced the same results and checksums.
    var agree: Bool
    var goal: Goal?

    var versusRaw: Double { dataStoreKit / rawLMDB }
    var versusSQLite: Double { dataStoreKit / sqlite }

    /// `true`/`false` when there is a goal, `nil` when there is none.
    var goalMet: Bool? {
        guard let goal else { return nil }
        let rawOK = goal.minimumVersusRaw.map { versusRaw >= $0 } ?? true
        let sqliteOK = goal.minimumVersusSQLite.map { versusSQLite >= $0 } ?? true
        return rawOK && sqliteOK
    }

    private enum CodingKeys: String, CodingKey {
        case workload, unit, dataStoreKit, rawLMDB, sqlite, results, agree, goal, versusRaw, versusSQLite, goalMet
    }

    /// The stored fields, plus the ratios and the verdict, so JSON readers need not recompute them.
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(workload, forKey: .workload)
        try container.encode(unit, forKey: .unit)
        try container.encode(dataStoreKit, forKey: .dataStoreKit)
        try container.encode(rawLMDB, forKey: .rawLMDB)
        try container.encode(sqlite, forKey: .sqlite)
        try container.encode(results, forKey: .results)
        try container.encode(agree, forKey: .agree)
        try container.encodeIfPresent(goal, forKey: .goal)
        try container.encode(versusRaw, forKey: .versusRaw)
        try container.encode(versusSQLite, forKey: .versusSQLite)
        try container.encodeIfPresent(goalMet, forKey: .goalMet)
    }
}

/// One group-commit configuration on one backend.
struct CommitRow: Codable, Sendable {
    var tasks: Int
    var backend: String
    var commits: Int
    var commitsPerSecond: Double
    var latency: LatencyStats
    var meanBatch: Double
}

struct Report: Encodable, Sendable {
    var size: Int
    var seed: UInt64
    var durableCommits: Int
    var durableSeconds: Double
    var machine: MachineInfo
    var probes: [SyncProbe] = []
    var rows: [ThroughputRow] = []
    var commits: [CommitRow] = []
    /// Group commit into a fresh event log (one-document contexts, ids in time order).
    var eventCommits: [CommitRow] = []
    /// DataStoreKit on PostgreSQL against hand-written libpq code, or why it did not run.
    var postgres = PostgresSection(status: "not run")
    /// Units of work on one hot record against as many on records of their own (LMDB's).
    var contention: [ContentionRow] = []
    /// Bytes on disk per backend after the loads (SQLite after a WAL checkpoint) and at the end.
    var fileBytes: [String: Int] = [:]
    /// Plans chosen for the queries (DataStoreKit's explain, SQLite's EXPLAIN QUERY PLAN).
    var plans: [String: String] = [:]
    /// Consistency checks and their outcome.
    var checks: [String] = []
    /// Facts worth knowing when reading the figures (writer batch sizes and the like).
    var notes: [String] = []
    var checksum: UInt64 = 0
    var seconds: Double = 0

    static let commitGoal = (versusOneTransactionPerSave: 10.0, versusCoalescer: 1.2)

    func commitRatios(tasks: Int, in commits: [CommitRow]) -> (versusOnePerSave: Double, versusCoalescer: Double)? {
        func rate(_ backend: String) -> Double? {
            commits.first { $0.tasks == tasks && $0.backend == backend }?.commitsPerSecond
        }
        guard let store = rate(CommitBackend.dataStoreKit), let single = rate(CommitBackend.dataStoreKitOnePerSave),
            let coalescer = rate(CommitBackend.rawCoalescer)
        else { return nil }
        return (store / single, store / coalescer)
    }

    // MARK: Text

    func printText() {
        print("")
        print(
            "StoreBenchmark — \(grouped(Double(size))) messages, seed \(String(seed, radix: 16)), "
                + "\(machine.cores) cores, \(fixed(machine.memoryGiB, 0)) GiB, Linux \(machine.kernel), load \(machine.loadAverage)"
        )
        print("")
        printThroughput()
        print("")
        printCommits(
            commits,
            title: "group commit into the messages (random ids, three indexes), durable: each save is one "
                + "new document, every saver saves in a loop (up to \(grouped(Double(durableCommits))) saves or \(fixed(durableSeconds, 0)) s per row)"
        )
        print("")
        printCommits(
            eventCommits,
            title: "group commit into a fresh event log (ids in time order, one index on created_ts), durable: "
                + "each save is a one-document context (raw: one insert), every saver saves in a loop")
        print("")
        printPostgres()
        print("")
        printContention()
        print("")
        print("disk-sync probe (4 KiB write + fsync):")
        for probe in probes {
            print(
                "  \(probe.label.padding(toLength: 28, withPad: " ", startingAt: 0)) p50 \(pad(fixed(probe.p50Microseconds, 0), 6)) µs"
                    + "   p99 \(pad(fixed(probe.p99Microseconds, 0), 6)) µs   (\(probe.syncs) syncs)")
        }
        print("")
        print("files on disk:")
        for (name, bytes) in fileBytes.sorted(by: { $0.key < $1.key }) {
            print(
                "  \(name.padding(toLength: 40, withPad: " ", startingAt: 0)) \(pad(fixed(Double(bytes) / 1_048_576, 1), 9)) MiB"
            )
        }
        print("")
        print("plans:")
        for (name, plan) in plans.sorted(by: { $0.key < $1.key }) { print("  \(name): \(plan)") }
        print("")
        print("checks:")
        for check in checks { print("  \(check)") }
        print("")
        print("notes:")
        for note in notes { print("  \(note)") }
        print("")
        print("checksum \(String(checksum, radix: 16))   total \(fixed(seconds, 1)) s")
    }

    /// The contention rows of both backends, and each hot rate against its independent one.
    func printContention() {
        let rows = contention + postgres.contention
        guard !rows.isEmpty else { return }
        print(
            "contention: units of work \"read the sender, count the message on it, add the message\", all at once; "
                + "hot: every unit the same sender; write = write { }, perform = contexts retried on .conflict")
        for row in rows { print("  " + Contention.describe(row)) }
        for backend in ["LMDB", "PostgreSQL"] {
            for line in Contention.ratios(rows, backend: backend) { print("  " + line) }
        }
    }

    func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : String(repeating: " ", count: width - text.count) + text
    }

    private func printThroughput() {
        let nameWidth = max(34, rows.map(\.workload.count).max() ?? 0)
        let header =
            "workload".padding(toLength: nameWidth, withPad: " ", startingAt: 0) + "  "
            + "unit".padding(toLength: 10, withPad: " ", startingAt: 0)
            + pad("DataStoreKit", 13) + pad("raw LMDB", 13) + pad("SQLite", 13)
            + pad("DSK/raw", 9) + pad("DSK/SQLite", 12) + "  goal                      met   same results"
        print(header)
        print(String(repeating: "-", count: header.count + 4))
        for row in rows {
            let met = row.goalMet.map { $0 ? "yes" : "NO" } ?? ""
            print(
                row.workload.padding(toLength: nameWidth, withPad: " ", startingAt: 0) + "  "
                    + row.unit.padding(toLength: 10, withPad: " ", startingAt: 0)
                    + pad(grouped(row.dataStoreKit), 13) + pad(grouped(row.rawLMDB), 13) + pad(grouped(row.sqlite), 13)
                    + pad(fixed(row.versusRaw, 2), 9) + pad(fixed(row.versusSQLite, 2), 12) + "  "
                    + (row.goal?.text ?? "").padding(toLength: 26, withPad: " ", startingAt: 0)
                    + met.padding(toLength: 6, withPad: " ", startingAt: 0)
                    + (row.agree ? "ok (\(row.results[0]))" : "MISMATCH \(row.results)"))
        }
        print("(reads: operations per second of thread CPU time, median of the samples; writes: wall clock)")
    }

    /// A group-commit table; `ratios` adds a line after each saver count's rows (LMDB's by default).
    func printCommits(_ commits: [CommitRow], title: String, ratios: ((Int) -> String?)? = nil) {
        guard !commits.isEmpty else { return }
        print(title)
        let header =
            pad("tasks", 5) + "  " + "backend".padding(toLength: 26, withPad: " ", startingAt: 0)
            + pad("commits/s", 11) + pad("p50 µs", 10) + pad("p99 µs", 10) + pad("mean batch", 12) + pad("saves", 8)
        print(header)
        print(String(repeating: "-", count: header.count))
        for tasks in Array(Set(commits.map(\.tasks))).sorted() {
            for row in commits where row.tasks == tasks {
                print(
                    pad("\(tasks)", 5) + "  " + row.backend.padding(toLength: 26, withPad: " ", startingAt: 0)
                        + pad(grouped(row.commitsPerSecond), 11) + pad(fixed(row.latency.p50Microseconds, 0), 10)
                        + pad(fixed(row.latency.p99Microseconds, 0), 10) + pad(fixed(row.meanBatch, 1), 12)
                        + pad("\(row.commits)", 8))
            }
            if let ratios, let line = ratios(tasks) {
                print(line)
            } else if ratios == nil, let ratios = commitRatios(tasks: tasks, in: commits) {
                var line =
                    "       DataStoreKit ÷ its 1 txn/save: \(fixed(ratios.versusOnePerSave, 2))×   "
                    + "÷ raw coalescer: \(fixed(ratios.versusCoalescer, 2))×"
                if tasks == 64 {
                    let met =
                        ratios.versusOnePerSave >= Self.commitGoal.versusOneTransactionPerSave
                        && ratios.versusCoalescer >= Self.commitGoal.versusCoalescer
                    line += "   goal ≥10× and ≥1.2×: \(met ? "met" : "NOT MET")"
                }
                print(line)
            }
        }
    }

    // MARK: JSON

    func printJSON() throws {
        print(String(decoding: try jsonData(), as: UTF8.self))
    }

    /// The JSON report, written to `path` (its directory created when missing).
    func writeJSON(to path: String) throws {
        let directory = (path as NSString).deletingLastPathComponent
        if !directory.isEmpty {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        }
        try jsonData().write(to: URL(fileURLWithPath: path))
    }

    private func jsonData() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.nonConformingFloatEncodingStrategy = .convertToString(
            positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        return try encoder.encode(self)
    }
}

/// The group-commit backends' names, as printed.
enum CommitBackend {
    static let dataStoreKit = "DataStoreKit"
    static let dataStoreKitOnePerSave = "DataStoreKit 1 txn/save"
    static let rawOnePerSave = "raw LMDB 1 txn/save"
    static let rawCoalescer = "raw LMDB coalescer"
    static let sqlite = "SQLite 1 row/txn"
}
