// The workloads, in the order they run: bulk load; reads (get by id, created_ts range, sender and
// recipient, full scan); the compound index; updates that move index entries; group commit at
// several concurrency levels; then cross-backend verification. Each runs on the three backends in
// turn, on identical data, and their results must agree. Then the PostgreSQL rows (PostgresBenchmark).
import BenchmarkSupport
import DataStoreCore
import DataStoreKit
import Foundation

/// (documents, sum of digests) of a result: what must agree across backends.
///
/// `full` hashes every byte of every field (the reference pass, whose checksums are compared);
/// otherwise — inside timed samples — it folds each field's length and the timestamp, which
/// touches every decoded field (so none can be optimised away) without adding a byte-by-byte hash
/// of ~200 bytes per document to every backend's time, which would pull their ratios toward 1.
@inline(__always)
func fold(_ messages: [Message], full: Bool = true) -> (results: Int, checksum: UInt64) {
    var sum: UInt64 = 0
    if full {
        for message in messages { sum &+= message.digest }
    } else {
        for message in messages {
            let lengths =
                message.id.utf8.count &+ message.from_user_key.utf8.count &+ message.to_user_key.utf8.count
                &+ message.message.utf8.count &+ message.type.utf8.count
            sum &+= UInt64(lengths) &+ message.created_ts.bitPattern
        }
    }
    return (messages.count, sum)
}

func runBenchmark(_ configuration: Configuration) async throws -> Report {
    let run = try await BenchmarkRun(configuration)
    return try await run.run()
}

final class BenchmarkRun {
    let configuration: Configuration
    let dataset: Dataset
    var report: Report
    let store: DataStoreKitBackend
    let raw: RawLMDBBackend
    let sqlite: SQLiteBackend
    /// A second DataStoreKit store whose `created_ts` index covers the documents (`--only covering`).
    let covering: DataStoreKitBackend?
    /// The saves of the single durable commits row, which the final count expects too.
    var singleCommitSaves = (dataStoreKit: 0, raw: 0)
    private let started = Clock.wall()

    init(_ configuration: Configuration) async throws {
        self.configuration = configuration
        report = Report(
            size: configuration.size, seed: configuration.seed,
            durableCommits: configuration.commitsPerConfiguration,
            durableSeconds: configuration.secondsPerConfiguration, machine: MachineInfo.current())
        let directory = configuration.directory
        if FileManager.default.fileExists(atPath: directory) {
            throw BenchmarkFailure("\(directory) exists; give a fresh --dir (the benchmark creates its stores there)")
        }
        for name in ["datastorekit", "raw-lmdb", "datastorekit-covering"] {
            try FileManager.default.createDirectory(atPath: directory + "/" + name, withIntermediateDirectories: true)
        }
        progress(
            "StoreBenchmark: \(grouped(Double(configuration.size))) messages (\(configuration.sizeName)), stores in \(directory)"
        )
        progress("generating the dataset (seed \(String(configuration.seed, radix: 16)))…")
        dataset = Dataset(count: configuration.size, seed: configuration.seed)
        if let failure = RawLayout.check(dataset.messages.prefix(1_000)) {
            throw BenchmarkFailure("the raw backend's layout differs from DataStoreKit's: \(failure)")
        }
        report.checks.append(
            "raw LMDB keys and records are byte-identical to DataStoreCore's encodings (1 000 messages)")
        let mapSize = max(1 << 30, configuration.size * 4_096)
        store = try await DataStoreKitBackend(path: directory + "/datastorekit", mapSize: mapSize)
        raw = try RawLMDBBackend(path: directory + "/raw-lmdb", mapSize: mapSize)
        sqlite = try SQLiteBackend(path: directory + "/sqlite.db")
        covering =
            configuration.runs("covering") && configuration.profile == nil
            ? try await DataStoreKitBackend(
                path: directory + "/datastorekit-covering", mapSize: mapSize, coveringCreated: true) : nil
    }

    func run() async throws -> Report {
        if let workload = configuration.profile {
            if PostgresBenchmark.profileWorkloads.contains(workload) {
                try await PostgresBenchmark.profile(workload, configuration: configuration, dataset: dataset)
            } else {
                try await profile(workload, seconds: configuration.profileSeconds)
            }
            store.close()
            if !configuration.keep { try? FileManager.default.removeItem(atPath: configuration.directory) }
            exit(0)
        }
        if configuration.onlyPostgres { return await closeAndRunPostgres() }
        report.probes.append(try SyncProbe.run("before the write workloads", in: configuration.directory))
        try await bulkLoad()
        try recordSizes(suffix: "after bulk load")
        if configuration.runs("get") { try getByID() }
        if configuration.runs("range") { try createdRange() }
        if covering != nil { try coveringRange() }
        if configuration.runs("pair") { try pairs(compound: false) }
        if configuration.runs("scan") { try scan() }
        try await buildCompoundIndex()
        if configuration.runs("pair") { try pairs(compound: true) }
        if configuration.runs("updates") { try await updates() }
        if configuration.runs("compact") { try await compactedScan() }
        if configuration.runs("commit") { try await groupCommit() }
        if configuration.runs("events") { try await eventCommits() }
        if configuration.runs("observers") { try await observerCommits() }
        if configuration.runs("contention") {
            let directory = configuration.directory + "/contention"
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            report.contention += try await Contention.lmdbRows(directory: directory)
        }
        report.probes.append(try SyncProbe.run("after the write workloads", in: configuration.directory))
        try verify()
        try recordSizes(suffix: "at the end")
        return await closeAndRunPostgres()
    }

    /// Closes the local backends, then runs the PostgreSQL rows (alone with `--only-postgres`).
    private func closeAndRunPostgres() async -> Report {
        store.close()
        covering?.close()
        raw.close()
        sqlite.close()
        if !configuration.keep { try? FileManager.default.removeItem(atPath: configuration.directory) }
        report.postgres = await PostgresBenchmark.section(configuration, dataset: dataset)
        report.seconds = Double(Clock.wall() - started) / 1e9
        return report
    }

    // MARK: Bulk load

    private func bulkLoad() async throws {
        let messages = dataset.messages
        let batches = stride(from: 0, to: messages.count, by: 1_000).map {
            messages[$0..<min($0 + 1_000, messages.count)]
        }
        var written: [String] = []
        func timed(_ name: String, _ body: () async throws -> Void) async rethrows -> Double {
            progress("bulk load, \(name): \(batches.count) durable transactions of 1 000…")
            let bytes = ThreadTimes.bytesWrittenToDisk()
            let cpu = ThreadTimes.processCPUSeconds()
            let start = Clock.wall()
            try await body()
            let seconds = Double(Clock.wall() - start) / 1e9
            let rate = Double(messages.count) / seconds
            let megabytes = Double(ThreadTimes.bytesWrittenToDisk() - bytes) / 1_048_576
            written.append(
                "\(name.split(separator: " (").first ?? "") \(fixed(megabytes, 0)) MiB written, "
                    + "\(fixed(ThreadTimes.processCPUSeconds() - cpu, 1)) s CPU in \(fixed(seconds, 1)) s")
            progress("  \(grouped(rate)) docs/s")
            return rate
        }
        let before = store.metrics
        let storeRate = try await timed("DataStoreKit (one add(contentsOf:) change set per batch)") {
            for batch in batches { try await store.add(batch) }
        }
        let after = store.metrics
        report.notes.append(
            "bulk load: DataStoreKit's writer committed \(after.batches - before.batches) batches, "
                + "mean \(fixed(Double(after.committedChangeSets - before.committedChangeSets) / Double(max(1, after.batches - before.batches)), 1)) change sets each, "
                + "\(fixed(Double(after.commitNanoseconds - before.commitNanoseconds) / 1e9, 2)) s inside write transactions"
        )
        let rawRate = try await timed("raw LMDB") {
            for batch in batches {
                try raw.write { transaction in for message in batch { try raw.insert(message, in: transaction) } }
            }
        }
        let sqliteRate = try await timed("SQLite") {
            for batch in batches { try sqlite.insert(batch) }
        }
        report.notes.append(
            "bulk load, bytes passed to write calls and process CPU: " + written.joined(separator: "; "))
        try sqlite.checkpoint()
        let counts = [try store.count(), try raw.counts()[0], try sqlite.count()]
        report.rows.append(
            ThroughputRow(
                workload: "bulk load (1 000/txn, durable)", unit: "docs/s", dataStoreKit: storeRate, rawLMDB: rawRate,
                sqlite: sqliteRate,
                results: counts, agree: Set(counts).count == 1 && counts[0] == messages.count,
                goal: Goal(minimumVersusRaw: 0.8, minimumVersusSQLite: 1)))
        if let covering {
            let rate = try await coveringBulkLoad(covering, batches)
            report.rows.append(
                ThroughputRow(
                    workload: "bulk load, covering created_ts (1 000/txn, durable)", unit: "docs/s",
                    dataStoreKit: rate, rawLMDB: rawRate, sqlite: sqliteRate, results: [try covering.count()],
                    agree: try covering.count() == messages.count, goal: nil))
            report.notes.append(
                "covering created_ts index, write cost: bulk load \(fixed(rate / storeRate, 2))× the store without it")
        }
    }

    // MARK: Reads

    private var samples: Int { 7 }

    /// Measures one read workload on the three backends — DataStoreKit through both mappings — and
    /// records three rows, all against the same raw and SQLite figures: the `Codable` mapping most
    /// users write, which the goal is for; `RecordDecodable` beside it; and the `Codable` ceiling:
    /// the `RecordDecodable` read, then each document it returned given once more to its synthesized
    /// `init(from:)` through ``FloorDecoder``, which reads nothing. That is what a `Codable` read
    /// would cost if its decoder read the bytes as fast as `init(record:)` does, so it bounds what
    /// any decoder can reach through `Codable` in this run.
    func read(
        _ workload: String, unit: String, inputs: Int, perSample: Int, goal: Goal?,
        store storeOperation: (_ input: Int, _ codable: Bool) throws -> [Message],
        raw rawOperation: (Int) throws -> [Message],
        sqlite sqliteOperation: (Int) throws -> [Message]
    ) throws {
        progress("\(workload): \(samples) samples of \(grouped(Double(perSample))) operations per backend…")
        let floor = FloorValues(strings: ["a", "b", "c", "d", "e"], doubles: [1])
        var floorSink = 0
        let measured = try sampleInterleaved(backends: 5, inputs: inputs, perSample: perSample, samples: samples) {
            backend, input, full in
            switch backend {
            case 0: return try fold(storeOperation(input, true), full: full)
            case 1: return try fold(rawOperation(input), full: full)
            case 2: return try fold(sqliteOperation(input), full: full)
            case 3: return try fold(storeOperation(input, false), full: full)
            default:
                // Right after the RecordDecodable read, over its documents: it finds them in the
                // caches, which flatters the ceiling, never the rows it bounds.
                let messages = try storeOperation(input, false)
                for _ in messages { floorSink &+= try Message(from: FloorDecoder(values: floor)).message.utf8.count }
                return fold(messages, full: full)
            }
        }
        blackHole(UInt64(truncatingIfNeeded: floorSink))
        for value in measured[0..<4] { report.checksum &+= value.checksum }
        let agree = Set(measured.map(\.results)).count == 1 && Set(measured.map(\.checksum)).count == 1
        progress(
            "  " + measured.map { grouped($0.operationsPerSecond) }.joined(separator: " / ")
                + " \(unit) (Codable / raw / SQLite / RecordDecodable / Codable ceiling)"
                + (agree ? "" : "   RESULTS DIFFER: \(measured.map(\.results)) \(measured.map(\.checksum))"))
        for (name, store, rowGoal) in [
            (workload, measured[0], goal), (workload + " [RecordDecodable]", measured[3], nil),
            (workload + " [Codable ceiling]", measured[4], nil)
        ] {
            report.rows.append(
                ThroughputRow(
                    workload: name, unit: unit, dataStoreKit: store.operationsPerSecond,
                    rawLMDB: measured[1].operationsPerSecond, sqlite: measured[2].operationsPerSecond,
                    results: Array(measured[0..<3].map(\.results)), agree: agree, goal: rowGoal))
        }
    }

    private func getByID() throws {
        let ids = dataset.lookupIDs
        try read(
            "get by id → object", unit: "gets/s", inputs: ids.count, perSample: 20_000,
            goal: .issue18Read,
            store: { [try store.get(id: ids[$0], codable: $1)] }, raw: { [try raw.get(id: ids[$0])] },
            sqlite: { [try sqlite.get(id: ids[$0])] })
    }

    private func createdRange() throws {
        let starts = dataset.rangeStarts
        report.plans["created_ts >= X limit 100 (DataStoreKit)"] = store.explain(
            ["created_ts >=": .double(starts[0])], ["limit": 100])
        report.plans["created_ts >= X limit 100 (SQLite)"] = try sqlite.plan(
            "SELECT * FROM messages WHERE created_ts >= 1 ORDER BY created_ts, id LIMIT 100")
        try read(
            "created_ts >= X limit 100 → objects", unit: "queries/s", inputs: starts.count, perSample: 500,
            goal: .issue18Read,
            store: { try store.created(since: starts[$0], codable: $1) },
            raw: { try raw.created(since: starts[$0], limit: 100) },
            sqlite: { try sqlite.created(since: starts[$0]) })
    }

    private func pairs(compound: Bool) throws {
        let pairs = dataset.pairs
        let suffix = compound ? "compound index" : "single-field indexes"
        report.plans["sender and recipient, \(suffix) (DataStoreKit)"] = store.explain(
            ["from_user_key": .string(pairs[0].from), "to_user_key": .string(pairs[0].to)])
        report.plans["sender and recipient, \(suffix) (SQLite)"] = try sqlite.plan(
            "SELECT * FROM messages WHERE from_user_key = '1' AND to_user_key = '2'")
        try read(
            "sender and recipient (\(suffix))", unit: "queries/s", inputs: min(pairs.count, 2_000), perSample: 1_000,
            goal: compound ? Goal(minimumVersusRaw: 0.8, minimumVersusSQLite: 1) : .issue18Read,
            store: { try store.messages(from: pairs[$0].from, to: pairs[$0].to, codable: $1) },
            raw: { try raw.messages(from: pairs[$0].from, to: pairs[$0].to, compound: compound) },
            sqlite: { try sqlite.messages(from: pairs[$0].from, to: pairs[$0].to) })
        guard compound else { return }
        try read(
            "sender and recipient (\(suffix), prepared)", unit: "queries/s", inputs: min(pairs.count, 2_000),
            perSample: 1_000, goal: nil,
            store: { try store.preparedMessages(from: pairs[$0].from, to: pairs[$0].to, codable: $1) },
            raw: { try raw.messages(from: pairs[$0].from, to: pairs[$0].to, compound: compound) },
            sqlite: { try sqlite.messages(from: pairs[$0].from, to: pairs[$0].to) })
    }

    private func scan() throws {
        let type = dataset.scanType
        report.plans["full scan type == video (DataStoreKit)"] = store.explain(["type": .string(type)])
        report.plans["full scan type == video (SQLite)"] = try sqlite.plan(
            "SELECT * FROM messages WHERE type = 'video'")
        try read(
            "full scan, type == \"video\" → objects", unit: "scans/s", inputs: 1, perSample: 1, goal: .issue18Read,
            store: { try store.messages(ofType: type, codable: $1) }, raw: { _ in try raw.messages(ofType: type) },
            sqlite: { _ in try sqlite.messages(ofType: type) })
    }

    // MARK: Compound index

    private func buildCompoundIndex() async throws {
        progress("building the compound index (from_user_key, to_user_key) on each backend…")
        var rates: [Double] = []
        for build in [
            { try await self.store.buildPairIndex() }, { try self.raw.buildPairIndex() },
            { try self.sqlite.buildPairIndex() }
        ] {
            let start = Clock.wall()
            try await build()
            rates.append(Double(dataset.messages.count) / (Double(Clock.wall() - start) / 1e9))
        }
        progress("  " + rates.map { grouped($0) }.joined(separator: " / ") + " docs/s")
        let counts = try raw.counts()
        report.rows.append(
            ThroughputRow(
                workload: "build compound index (existing data)", unit: "docs/s", dataStoreKit: rates[0],
                rawLMDB: rates[1],
                sqlite: rates[2], results: [counts[4]], agree: counts[4] == counts[0],
                goal: Goal(minimumVersusRaw: nil, minimumVersusSQLite: 1)))
    }

    // MARK: Updates

    /// Replaces messages with a new `created_ts` and recipient (the sender stays): two of the four
    /// index entries move. Batches of 1 000 per durable transaction (DataStoreKit: 1 000 concurrent puts).
    private func updates() async throws {
        let count = min(dataset.messages.count / 10, 100_000)
        var generator = MessageGenerator(seed: configuration.seed ^ 0x0BDA_7E5)
        let updated = dataset.messages.prefix(count).map { message in
            var message = message
            message.created_ts = generator.randomTimestamp()
            message.to_user_key = generator.randomUser()
            return message
        }
        let batches = stride(from: 0, to: updated.count, by: 1_000).map { updated[$0..<min($0 + 1_000, updated.count)] }
        progress("updates moving index entries: \(grouped(Double(count))) in durable transactions of 1 000…")
        var rates: [Double] = []
        var operations: [() async throws -> Void] = [
            { for batch in batches { try await self.store.put(batch) } },
            {
                for batch in batches {
                    try self.raw.write { transaction in
                        for message in batch { try self.raw.update(message, in: transaction) }
                    }
                }
            },
            { for batch in batches { try self.sqlite.update(batch) } }
        ]
        if let covering { operations.append { for batch in batches { try await covering.put(batch) } } }
        for operation in operations {
            let start = Clock.wall()
            try await operation()
            rates.append(Double(count) / (Double(Clock.wall() - start) / 1e9))
        }
        progress("  " + rates.map { grouped($0) }.joined(separator: " / ") + " docs/s")
        // The updated documents must now read back identically everywhere.
        let probe = updated.prefix(200).map(\.id)
        var sums: [UInt64] = [0, 0, 0]
        for id in probe {
            sums[0] &+= try store.get(id: id).digest
            sums[1] &+= try raw.get(id: id).digest
            sums[2] &+= try sqlite.get(id: id).digest
        }
        let expected = updated.prefix(200).reduce(UInt64(0)) { $0 &+ $1.digest }
        report.rows.append(
            ThroughputRow(
                workload: "update moving 2 index entries (1 000/txn)", unit: "docs/s", dataStoreKit: rates[0],
                rawLMDB: rates[1],
                sqlite: rates[2], results: [count, count, count], agree: sums.allSatisfy { $0 == expected }, goal: nil))
        if let covering {
            let agree =
                try updated.prefix(200).reduce(UInt64(0)) { $0 &+ (try covering.get(id: $1.id).digest) } == expected
            report.rows.append(
                ThroughputRow(
                    workload: "update moving 2 index entries, covering created_ts (1 000/txn)", unit: "docs/s",
                    dataStoreKit: rates[3], rawLMDB: rates[1], sqlite: rates[2], results: [count, count, count],
                    agree: agree, goal: nil))
            report.notes.append(
                "covering created_ts index, write cost: updates \(fixed(rates[3] / rates[0], 2))× the store without it")
        }
    }

    // MARK: Group commit

    func newMessages(_ count: Int, tag: String) -> [Message] {
        var seed = configuration.seed
        for byte in tag.utf8 { seed = (seed ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
        var generator = MessageGenerator(seed: seed, idPrefix: tag + "-")
        return generator.make(count)
    }

    private func groupCommit() async throws {
        var singleRates: [Double] = []
        for tasks in configuration.taskCounts {
            let perTask = max(1, configuration.commitsPerConfiguration / tasks)
            let total = perTask * tasks
            let seconds = configuration.secondsPerConfiguration
            progress(
                "group commit, \(tasks) concurrent savers, up to \(total) durable saves or \(fixed(seconds, 0)) s per backend…"
            )

            try await storeCommits(tasks: tasks, perTask: perTask, backend: CommitBackend.dataStoreKit)
            try await store.reopen(limits: WriterLimits(maxChangeSetsPerBatch: 1))
            try await storeCommits(tasks: tasks, perTask: perTask, backend: CommitBackend.dataStoreKitOnePerSave)
            try await store.reopen(limits: WriterLimits())

            let rawMessages = newMessages(total, tag: "raw\(tasks)")
            let raw = self.raw
            let rawResult = await saveOnThreads(
                tasks, rawMessages, perThread: perTask, until: Clock.wall() + UInt64(seconds * 1e9)
            ) { message in
                try raw.write { transaction in try raw.insert(message, in: transaction) }
            }
            try record(tasks: tasks, backend: CommitBackend.rawOnePerSave, rawResult, meanBatch: 1)

            let coalescedMessages = newMessages(total, tag: "coalesced\(tasks)")
            let coalescer = RawCoalescer(backend: raw)
            let coalescerCPU = (ThreadTimes.cpuSeconds(threadsNamed: "RawCoalescer"), ThreadTimes.processCPUSeconds())
            let coalescedResult = await saveOnThreads(
                tasks, coalescedMessages, perThread: perTask,
                until: Clock.wall() + UInt64(seconds * 1e9)
            ) { coalescer.save($0) }
            let counters = coalescer.counters
            if tasks == configuration.taskCounts.max() {
                let batches = Double(max(1, counters.batches))
                report.notes.append(
                    "raw LMDB coalescer, \(tasks) tasks: \(counters.batches) batches in "
                        + "\(fixed(Double(coalescedResult.nanoseconds) / 1e9, 2)) s = \(fixed(Double(coalescedResult.nanoseconds) / batches / 1e6, 2)) ms each, "
                        + "of which coalescer-thread CPU \(fixed((ThreadTimes.cpuSeconds(threadsNamed: "RawCoalescer") - coalescerCPU.0) / batches * 1e3, 2)) ms; "
                        + "process CPU \(fixed(ThreadTimes.processCPUSeconds() - coalescerCPU.1, 2)) s")
            }
            coalescer.stop()
            var failures = coalescedResult.failures
            if counters.failures > 0 { failures.append("\(counters.failures) coalesced saves failed") }
            try record(
                tasks: tasks, backend: CommitBackend.rawCoalescer,
                (coalescedResult.latencies, coalescedResult.nanoseconds, failures),
                meanBatch: Double(counters.committed) / Double(max(1, counters.batches)))

            let sqliteMessages = newMessages(total, tag: "sqlite\(tasks)")
            let sqlite = self.sqlite
            let sqliteResult = await saveOnThreads(
                tasks, sqliteMessages, perThread: perTask,
                until: Clock.wall() + UInt64(seconds * 1e9)
            ) { try sqlite.insertOne($0) }
            try record(tasks: tasks, backend: CommitBackend.sqlite, sqliteResult, meanBatch: 1)
            if tasks == 1 {
                singleRates = [report.commits.last { $0.backend == CommitBackend.sqlite }!.commitsPerSecond]
            }
        }
        if !singleRates.isEmpty {
            let (storeRate, rawRate) = try await alternatingSingleCommits()
            report.rows.append(
                ThroughputRow(
                    workload: "single durable commits, 1 writer", unit: "commits/s", dataStoreKit: storeRate,
                    rawLMDB: rawRate, sqlite: singleRates[0], results: [1, 1, 1], agree: true,
                    goal: Goal(minimumVersusRaw: 0.95)))
        }
    }

    func storeCommits(tasks: Int, perTask: Int, backend: String) async throws {
        let messages = newMessages(
            tasks * perTask, tag: (backend == CommitBackend.dataStoreKit ? "dsk" : "dsk1-") + "\(tasks)")
        let collection = store.messages!
        let before = store.metrics
        let processCPU = ThreadTimes.processCPUSeconds()
        let (latencies, elapsed) = try await saveInTasks(
            tasks, messages, perTask: perTask,
            until: Clock.wall() + UInt64(configuration.secondsPerConfiguration * 1e9)
        ) { message in
            _ = try await collection.add(object: message)
        }
        let after = store.metrics
        let batches = Double(max(1, after.batches - before.batches))
        let meanBatch = Double(after.committedChangeSets - before.committedChangeSets) / batches
        if tasks == configuration.taskCounts.max() {
            report.notes.append(
                "\(backend), \(tasks) tasks: \(Int(batches)) batches in \(fixed(Double(elapsed) / 1e9, 2)) s = "
                    + "\(fixed(Double(elapsed) / batches / 1e6, 2)) ms each; inside the write transaction (begin→commit) "
                    + "\(fixed(Double(after.commitNanoseconds - before.commitNanoseconds) / batches / 1e6, 2)) ms; "
                    + "process CPU \(fixed(ThreadTimes.processCPUSeconds() - processCPU, 2)) s for \(fixed(Double(elapsed) / 1e9, 2)) s wall on \(report.machine.cores) cores"
            )
        }
        try record(tasks: tasks, backend: backend, (latencies, elapsed, []), meanBatch: meanBatch)
    }

    func record(
        tasks: Int, backend: String, _ result: (latencies: [UInt64], nanoseconds: UInt64, failures: [String]),
        meanBatch: Double, table: WritableKeyPath<Report, [CommitRow]> = \.commits
    ) throws {
        guard result.failures.isEmpty else {
            throw BenchmarkFailure(
                "\(backend), \(tasks) tasks: \(result.failures.count) savers failed: \(result.failures.first!)")
        }
        let row = CommitRow(
            tasks: tasks, backend: backend, commits: result.latencies.count,
            commitsPerSecond: Double(result.latencies.count) / (Double(result.nanoseconds) / 1e9),
            latency: LatencyStats(result.latencies), meanBatch: meanBatch)
        progress(
            "  \(backend.padding(toLength: 26, withPad: " ", startingAt: 0)) \(grouped(row.commitsPerSecond)) commits/s, "
                + "p50 \(fixed(row.latency.p50Microseconds, 0)) µs, p99 \(fixed(row.latency.p99Microseconds, 0)) µs, mean batch \(fixed(meanBatch, 1))"
        )
        report[keyPath: table].append(row)
    }

    // MARK: Verification and sizes

    /// After every write: each backend holds the dataset plus exactly the saves it acknowledged,
    /// every raw index has one entry per record, DataStoreKit's own integrity check finds nothing,
    /// and sender-and-recipient queries and the full scan return the same dataset documents (the
    /// updated ones included) everywhere.
    private func verify() throws {
        progress("verifying the three backends agree…")
        func saves(_ backends: String...) -> Int {
            report.commits.filter { backends.contains($0.backend) }.reduce(0) { $0 + $1.commits }
        }
        let base = dataset.messages.count
        let rawCounts = try raw.counts()
        let found = [try store.count(), rawCounts[0], try sqlite.count()]
        let expected = [
            base + saves(CommitBackend.dataStoreKit, CommitBackend.dataStoreKitOnePerSave)
                + singleCommitSaves.dataStoreKit,
            base + saves(CommitBackend.rawOnePerSave, CommitBackend.rawCoalescer) + singleCommitSaves.raw,
            base + saves(CommitBackend.sqlite)
        ]
        report.checks.append(
            "documents after all writes (DataStoreKit, raw, SQLite): \(found.map(String.init).joined(separator: ", ")), "
                + "expected \(expected.map(String.init).joined(separator: ", ")): "
                + (found == expected ? "ok" : "MISMATCH"))
        report.checks.append(
            "raw LMDB index entries (created_ts, from, to, pair) per record: "
                + (rawCounts.dropFirst().allSatisfy { $0 == rawCounts[0] } ? "ok" : "MISMATCH \(rawCounts)"))
        let problems = try store.messages.check() + (covering?.messages.check() ?? [])
        report.checks.append(
            "DataStoreKit integrity check (records against indexes\(covering == nil ? "" : ", both stores")): "
                + (problems.isEmpty ? "ok" : "\(problems.count) PROBLEMS, first: \(problems[0])"))
        // Write workloads' ids carry a tag prefix; dataset ids are exactly 36 bytes.
        var sums: [UInt64] = [0, 0, 0]
        var sizes = [0, 0, 0]
        func add(_ index: Int, _ messages: [Message]) {
            for message in messages where message.id.utf8.count == 36 {
                sums[index] &+= message.digest
                sizes[index] += 1
            }
        }
        for pair in dataset.pairs.prefix(500) {
            add(0, try store.messages(from: pair.from, to: pair.to))
            add(1, try raw.messages(from: pair.from, to: pair.to, compound: true))
            add(2, try sqlite.messages(from: pair.from, to: pair.to))
        }
        let pairsAgree = Set(sizes).count == 1 && Set(sums).count == 1
        let pairResults = sizes[0]
        sums = [0, 0, 0]
        sizes = [0, 0, 0]
        add(0, try store.messages(ofType: dataset.scanType))
        add(1, try raw.messages(ofType: dataset.scanType))
        add(2, try sqlite.messages(ofType: dataset.scanType))
        let scanAgree = Set(sizes).count == 1 && Set(sums).count == 1
        report.checks.append(
            "after all writes, 500 sender-and-recipient queries (\(pairResults) documents): "
                + "\(pairsAgree ? "ok" : "MISMATCH"); the full scan (\(sizes[0]) documents): \(scanAgree ? "ok" : "MISMATCH")"
        )
    }

    func recordSizes(suffix: String) throws {
        try sqlite.checkpoint()
        let directory = configuration.directory
        report.fileBytes["DataStoreKit data.mdb \(suffix)"] = fileBytes([directory + "/datastorekit/data.mdb"])
        if covering != nil {
            report.fileBytes["covering DSK data.mdb \(suffix)"] = fileBytes([
                directory + "/datastorekit-covering/data.mdb"
            ])
        }
        report.fileBytes["raw LMDB data.mdb \(suffix)"] = fileBytes([directory + "/raw-lmdb/data.mdb"])
        report.fileBytes["SQLite db + wal \(suffix)"] = fileBytes([
            directory + "/sqlite.db", directory + "/sqlite.db-wal"
        ])
        // What the full scan reads: the pages of the records alone, without the indexes.
        report.fileBytes["DataStoreKit messages records' pages \(suffix)"] =
            try store.store.statistics().collections.first { $0.name == "messages" }?.bytes
        // A SQLite built without `dbstat` has no such figure; the run goes on without it.
        report.fileBytes["SQLite messages table's pages \(suffix)"] = try? sqlite.tableBytes("messages")
    }
}
