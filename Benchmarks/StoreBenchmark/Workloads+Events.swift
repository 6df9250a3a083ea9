// Group commit into a fresh event log: the shape of issue 5's yardstick ("64 concurrent tasks
// each saving one-document contexts, durable"). Every backend starts from an empty environment
// with one collection `events` indexed on `created_ts`; each save is one new message whose id and
// timestamp grow with time (as the ids DataStoreKit generates), so writes append at the right
// edge of the b-trees and a commit costs its syncs more than its page writes. This is the
// opposite of the messages workload above, whose random ids and three random indexes make every
// save write four or five scattered pages whatever the coalescing.
import DataStoreCore
import DataStoreKit
import Foundation

extension BenchmarkRun {
    /// The events for one backend and concurrency: saver `t`'s `k`-th event has sequence number
    /// `k × tasks + t`, so that savers running side by side produce ids in about time order.
    func newEvents(tasks: Int, perTask: Int, tag: String) -> [Message] {
        Self.events(seed: configuration.seed, tasks: tasks, perTask: perTask, tag: tag)
    }

    /// ``newEvents(tasks:perTask:tag:)`` from `seed`, for the PostgreSQL rows.
    static func events(seed: UInt64, tasks: Int, perTask: Int, tag: String) -> [Message] {
        var generator = MessageGenerator(seed: seed ^ 0xE7E7, idPrefix: "")
        let base = Date().timeIntervalSince1970
        var events = generator.make(tasks * perTask)
        for task in 0..<tasks {
            for k in 0..<perTask {
                let sequence = k * tasks + task
                let digits = String(sequence)
                events[task * perTask + k].id =
                    tag + "-" + String(repeating: "0", count: max(0, 12 - digits.count)) + digits
                events[task * perTask + k].created_ts = base + Double(sequence) / 1_000
            }
        }
        return events
    }

    /// The event-log rows. The disk of a shared machine changes speed from one second to the next,
    /// so DataStoreKit and the raw coalescer — the comparison that matters — run in alternating
    /// rounds (`eventRounds` of each, sharing the time budget), and each row sums its rounds; the
    /// one-transaction-per-save baselines run once.
    func eventCommits() async throws {
        let directory = configuration.directory
        for name in ["datastorekit-events", "raw-lmdb-events"] {
            try FileManager.default.createDirectory(atPath: directory + "/" + name, withIntermediateDirectories: true)
        }
        let mapSize = 1 << 30
        let path = directory + "/datastorekit-events"
        let raw = try RawEventLog(path: directory + "/raw-lmdb-events", mapSize: mapSize)
        defer { raw.close() }
        var acknowledged = (store: 0, raw: 0)
        let rounds = Self.eventRounds

        func openStore(_ limits: WriterLimits) async throws -> (DataStore, StoreCollection<Message>) {
            try await Self.openEventStore(path: path, mapSize: mapSize, limits: limits)
        }

        for tasks in configuration.taskCounts {
            let perTask = max(1, Self.eventPoolFactor * configuration.commitsPerConfiguration / tasks / rounds)
            let seconds = configuration.secondsPerConfiguration
            progress(
                "event log, \(tasks) concurrent savers of one-document contexts, \(rounds) alternating rounds of "
                    + "up to \(perTask * tasks) saves or \(fixed(seconds / Double(rounds), 1)) s…")

            // DataStoreKit and the raw coalescer, alternating.
            let (store, events) = try await openStore(WriterLimits())
            let coalescer = RawCoalescer(backend: raw)
            var storeRounds: [(latencies: [UInt64], nanoseconds: UInt64)] = []
            var rawRounds: [(latencies: [UInt64], nanoseconds: UInt64, failures: [String])] = []
            var storeCPU = CPUUsage(), rawCPU = CPUUsage()
            for round in 0..<rounds {
                let pool = newEvents(tasks: tasks, perTask: perTask, tag: "dsk\(tasks)r\(round)")
                let storeStart = CPUUsage.now(writerThreads: Self.storeWriterThreads)
                storeRounds.append(
                    try await saveInTasks(
                        tasks, pool, perTask: perTask,
                        until: Clock.wall() + UInt64(seconds / Double(rounds) * 1e9)
                    ) { event in
                        try await Self.saveInContext(event, store: store, events: events)
                    })
                storeCPU += CPUUsage.now(writerThreads: Self.storeWriterThreads) - storeStart
                let rawPool = newEvents(tasks: tasks, perTask: perTask, tag: "coalesced\(tasks)r\(round)")
                let rawStart = CPUUsage.now(writerThreads: ["RawCoalescer"])
                rawRounds.append(
                    await saveOnThreads(
                        tasks, rawPool, perThread: perTask,
                        until: Clock.wall() + UInt64(seconds / Double(rounds) * 1e9)
                    ) { coalescer.save($0) })
                rawCPU += CPUUsage.now(writerThreads: ["RawCoalescer"]) - rawStart
            }
            let metrics = store.writerMetrics
            let counters = coalescer.counters
            coalescer.stop()
            acknowledged.store += storeRounds.reduce(0) { $0 + $1.latencies.count }
            let found = try events.count()
            store.close()
            if found != acknowledged.store {
                throw BenchmarkFailure(
                    "event log, \(tasks) tasks: DataStoreKit stored \(found) events, acknowledged \(acknowledged.store)"
                )
            }
            let roundRatios = zip(storeRounds, rawRounds).map { store, raw in
                (Double(store.latencies.count) / Double(store.nanoseconds))
                    / (Double(raw.latencies.count) / Double(raw.nanoseconds))
            }
            report.notes.append(
                "event log, \(tasks) tasks: DataStoreKit ÷ raw coalescer per round: "
                    + roundRatios.map { fixed($0, 2) }.joined(separator: ", ")
                    + "; DataStoreKit's writer: \(metrics.batches) batches, "
                    + "\(fixed(Double(metrics.commitNanoseconds) / Double(max(1, metrics.batches)) / 1e6, 2)) ms each inside the transaction, "
                    + "\(metrics.dataFileExtensions) data-file extensions; CPU per save, process / writing threads: DataStoreKit "
                    + storeCPU.perSave(storeRounds.reduce(0) { $0 + $1.latencies.count }) + ", raw coalescer "
                    + rawCPU.perSave(rawRounds.reduce(0) { $0 + $1.latencies.count }))
            try record(
                tasks: tasks, backend: CommitBackend.dataStoreKit,
                (storeRounds.flatMap(\.latencies), storeRounds.reduce(0) { $0 + $1.nanoseconds }, []),
                meanBatch: Double(metrics.committedChangeSets) / Double(max(1, metrics.batches)), table: \.eventCommits)

            // The baselines: one transaction per save.
            let (single, singleEvents) = try await openStore(WriterLimits(maxChangeSetsPerBatch: 1))
            let singlePool = newEvents(tasks: tasks, perTask: perTask * rounds, tag: "dsk1-\(tasks)")
            let singleResult = try await saveInTasks(
                tasks, singlePool, perTask: perTask * rounds,
                until: Clock.wall() + UInt64(seconds * 1e9)
            ) { event in
                try await Self.saveInContext(event, store: single, events: singleEvents)
            }
            acknowledged.store += singleResult.latencies.count
            let singleFound = try singleEvents.count()
            single.close()
            if singleFound != acknowledged.store {
                throw BenchmarkFailure(
                    "event log, \(tasks) tasks: DataStoreKit stored \(singleFound) events, acknowledged \(acknowledged.store)"
                )
            }
            try record(
                tasks: tasks, backend: CommitBackend.dataStoreKitOnePerSave,
                (singleResult.latencies, singleResult.nanoseconds, []),
                meanBatch: 1, table: \.eventCommits)

            let rawPool = newEvents(tasks: tasks, perTask: perTask * rounds, tag: "raw\(tasks)")
            let rawSingle = await saveOnThreads(
                tasks, rawPool, perThread: perTask * rounds, until: Clock.wall() + UInt64(seconds * 1e9)
            ) { event in
                try raw.write { transaction in try raw.insert(event, in: transaction) }
            }
            acknowledged.raw += rawSingle.latencies.count
            try record(
                tasks: tasks, backend: CommitBackend.rawOnePerSave, rawSingle, meanBatch: 1, table: \.eventCommits)

            var failures = rawRounds.flatMap(\.failures)
            if counters.failures > 0 { failures.append("\(counters.failures) coalesced saves failed") }
            acknowledged.raw += rawRounds.reduce(0) { $0 + $1.latencies.count }
            try record(
                tasks: tasks, backend: CommitBackend.rawCoalescer,
                (rawRounds.flatMap(\.latencies), rawRounds.reduce(0) { $0 + $1.nanoseconds }, failures),
                meanBatch: Double(counters.committed) / Double(max(1, counters.batches)), table: \.eventCommits)
        }
        let rawCounts = try raw.counts()
        report.checks.append(
            "event log: raw LMDB holds \(rawCounts.records) events and \(rawCounts.indexEntries) index entries for "
                + "\(acknowledged.raw) acknowledged saves; DataStoreKit held as many events as it acknowledged after every row: "
                + (rawCounts.records == acknowledged.raw && rawCounts.indexEntries == acknowledged.raw
                    ? "ok" : "MISMATCH"))
    }

    /// A durable store at `path` holding the event log's collection: `events`, indexed on
    /// `created_ts`.
    static func openEventStore(path: String, mapSize: Int, limits: WriterLimits = WriterLimits()) async throws
        -> (DataStore, StoreCollection<Message>)
    {
        let store = try DataStore.open(
            path: path, options: DataStore.Options(mapSize: mapSize, durability: .durable, writerLimits: limits))
        let events: StoreCollection<Message> = try await store.collection(
            "events", mapping: .record(idField: "id"), indexes: [IndexDefinition("created_ts")])
        return (store, events)
    }

    /// The yardstick's unit of work: `event` added in a one-document context, then saved.
    static func saveInContext(_ event: Message, store: DataStore, events: StoreCollection<Message>) async throws {
        let context = store.newContext()
        try context.add(event, to: events)
        _ = try await context.save()
    }

    /// DataStoreKit's thread that commits.
    static let storeWriterThreads = ["DataStoreWriter"]

    /// Alternating rounds per event-log row.
    static let eventRounds = 4
    /// The event log's pool of new documents, as a multiple of `--durable-commits`: appends are
    /// cheap, and with the messages workload's pool a round at 64 savers ended after ~0.1 s,
    /// short enough for start-up to move its ratio; with this one it runs for its time budget.
    static let eventPoolFactor = 4
}

/// CPU time of the process and of its committing threads, summed over rounds.
struct CPUUsage {
    var process = 0.0
    var writer = 0.0

    static func now(writerThreads: [String]) -> CPUUsage {
        CPUUsage(
            process: ThreadTimes.processCPUSeconds(),
            writer: writerThreads.reduce(0) { $0 + ThreadTimes.cpuSeconds(threadsNamed: $1) })
    }

    static func - (lhs: CPUUsage, rhs: CPUUsage) -> CPUUsage {
        CPUUsage(process: lhs.process - rhs.process, writer: lhs.writer - rhs.writer)
    }

    static func += (lhs: inout CPUUsage, rhs: CPUUsage) {
        lhs.process += rhs.process
        lhs.writer += rhs.writer
    }

    /// "process µs / writing threads µs" per save.
    func perSave(_ saves: Int) -> String {
        let count = Double(max(1, saves))
        return "\(fixed(process / count * 1e6, 1)) / \(fixed(writer / count * 1e6, 1)) µs"
    }
}
