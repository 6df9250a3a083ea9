// The PostgreSQL rows: DataStoreKit's PostgresStore against hand-written libpq code (prepared
// statements, the same table layout) on one server, in a database of their own that is dropped
// afterwards. Reads are timed with the wall clock (the work happens in the server's process),
// interleaved with a `SELECT 1` that shows how much of each operation is the round trip.
import Foundation

final class PostgresBenchmark {
    let configuration: Configuration
    let dataset: Dataset
    let database: String
    var section: PostgresSection
    var store: PostgresBackend!
    var floor: LibpqBackend!
    private let admin: LibpqConnection

    /// The PostgreSQL section for `configuration`: run against the server `PG*` names, or skipped.
    static func section(_ configuration: Configuration, dataset: Dataset) async -> PostgresSection {
        guard let server = configuration.postgresServer else {
            let why = configuration.postgres ? "PGHOST is not set" : "--no-postgres"
            progress("PostgreSQL rows: skipped (\(why))")
            return PostgresSection(status: "skipped (\(why))")
        }
        do {
            let benchmark = try PostgresBenchmark(configuration, dataset: dataset, server: server)
            return try await benchmark.run()
        } catch {
            progress("PostgreSQL rows failed: \(error)")
            return PostgresSection(status: "FAILED against \(server): \(error)")
        }
    }

    init(_ configuration: Configuration, dataset: Dataset, server: String) throws {
        self.configuration = configuration
        let count = configuration.postgresCount
        self.dataset = count == dataset.messages.count ? dataset : Dataset(count: count, seed: configuration.seed)
        database = "storebench_\(getpid())"
        let admin = try LibpqConnection("")
        self.admin = admin
        let settings: [String]
        do {
            settings = try ["server_version", "fsync", "synchronous_commit", "shared_buffers"].map {
                "\($0) \(try admin.value("SHOW \($0)"))"
            }
            try admin.execute("CREATE DATABASE \(database)")
        } catch {
            admin.close()
            throw error
        }
        section = PostgresSection(
            status: "against \(server), database \(database) (dropped afterwards), " + settings.joined(separator: ", "),
            size: count)
        progress("PostgreSQL rows: \(section.status); \(grouped(Double(count))) messages")
    }

    private func run() async throws -> PostgresSection {
        do {
            let conninfo = "dbname=\(database)"
            floor = try LibpqBackend(conninfo: conninfo)
            store = try await PostgresBackend(conninfo: conninfo, reads: configuration.postgresReads)
            try measureRoundTrip()
            try await bulkLoad()
            try await reads()
            try await buildPairIndex()
            if configuration.runs("pair") { try await pairs() }
            if configuration.runs("updates") { try await updates() }
            if configuration.runs("events") { try await eventCommits(conninfo: conninfo) }
            if configuration.runs("contention") {
                section.contention = try await Contention.rows(
                    backend: "PostgreSQL", store: store.store, prefix: "contention")
            }
            try await verify()
        } catch {
            cleanUp()
            throw error
        }
        cleanUp()
        return section
    }

    func cleanUp() {
        store?.close()
        floor?.close()
        if configuration.keep {
            progress("PostgreSQL: database \(database) kept (--keep)")
        } else {
            _ = try? admin.execute("DROP DATABASE IF EXISTS \(database) WITH (FORCE)")
        }
        admin.close()
    }

    // MARK: Round trip and bulk load

    private func measureRoundTrip() throws {
        var latencies: [UInt64] = []
        for _ in 0..<2_000 {
            let start = Clock.wall()
            _ = try floor.roundTrip()
            latencies.append(Clock.wall() - start)
        }
        let stats = LatencyStats(latencies)
        section.roundTrip = stats
        progress(
            "PostgreSQL SELECT 1 round trip through libpq: p50 \(fixed(stats.p50Microseconds, 0)) µs, "
                + "p99 \(fixed(stats.p99Microseconds, 0)) µs")
    }

    private func bulkLoad() async throws {
        let messages = dataset.messages
        let batches = stride(from: 0, to: messages.count, by: 1_000).map {
            messages[$0..<min($0 + 1_000, messages.count)]
        }
        progress("PostgreSQL bulk load: \(batches.count) transactions of 1 000 per backend…")
        var rates: [Double] = []
        let loads: [() async throws -> Void] = [
            { for batch in batches { try await self.store.add(batch) } },
            { for batch in batches { try self.floor.insert(batch) } }
        ]
        for load in loads {
            let start = Clock.wall()
            try await load()
            rates.append(Double(messages.count) / (Double(Clock.wall() - start) / 1e9))
        }
        // Statistics now rather than when autovacuum gets to them, so both plans are those of a settled table.
        try floor.analyze()
        let counts = [try await store.count(), try floor.count()]
        progress("  " + rates.map { grouped($0) }.joined(separator: " / ") + " docs/s")
        section.rows.append(
            PostgresRow(
                workload: "bulk load (1 000/txn, durable)", unit: "docs/s", dataStoreKit: rates[0], libpq: rates[1],
                results: counts, agree: counts.allSatisfy { $0 == messages.count }))
    }

    // MARK: Reads

    private var samples: Int { 7 }

    /// Measures one read workload on both backends, with a `SELECT 1` and the floor's statement
    /// sent unprepared as third and fourth, and records a row.
    func read(
        _ workload: String, unit: String, inputs: Int, perSample: Int, goal: Double?,
        store storeOperation: (Int) async throws -> [Message],
        floor floorOperation: (Int, _ prepared: Bool) throws -> [Message]
    ) async throws {
        progress("PostgreSQL \(workload): \(samples) samples of \(grouped(Double(perSample))) operations per backend…")
        let floor = self.floor!
        let measured = try await sampleWallInterleaved(
            backends: 4, inputs: inputs, perSample: perSample, samples: samples
        ) { backend, input, full in
            switch backend {
            case 0: try fold(await storeOperation(input), full: full)
            case 1: try fold(floorOperation(input, true), full: full)
            case 2: (0, UInt64(try floor.roundTrip()))
            default: try fold(floorOperation(input, false), full: full)
            }
        }
        let agree = [1, 3].allSatisfy {
            measured[0].results == measured[$0].results && measured[0].checksum == measured[$0].checksum
        }
        let roundTrip = 1e6 / measured[2].operationsPerSecond
        progress(
            "  " + measured.map { grouped($0.operationsPerSecond) }.joined(separator: " / ")
                + " \(unit) (DSK / libpq / SELECT 1 / libpq unprepared)"
                + (agree ? "" : "   RESULTS DIFFER: \(measured.map(\.results)) \(measured.map(\.checksum))"))
        section.rows.append(
            PostgresRow(
                workload: workload, unit: unit, dataStoreKit: measured[0].operationsPerSecond,
                libpq: measured[1].operationsPerSecond, results: [measured[0].results, measured[1].results],
                agree: agree, goal: goal, roundTripMicroseconds: roundTrip,
                libpqUnprepared: measured[3].operationsPerSecond,
                clientCPUMicroseconds: [measured[0].clientCPUMicroseconds, measured[1].clientCPUMicroseconds]))
    }

    /// Get, range, sender and recipient over single-field indexes, and the full scan, as `--only` says.
    private func reads() async throws {
        let store = self.store!, floor = self.floor!
        if configuration.runs("get") {
            let ids = dataset.lookupIDs
            try await read(
                "get by id → object", unit: "gets/s", inputs: min(ids.count, 5_000), perSample: 2_000, goal: 0.8,
                store: { try await [store.get(id: ids[$0])] }, floor: { try [floor.get(id: ids[$0], prepared: $1)] })
        }
        if configuration.runs("range") {
            let starts = dataset.rangeStarts
            section.plans["created_ts >= X limit 100"] = store.explain(
                ["created_ts >=": .double(starts[0])], ["limit": 100])
            try await read(
                "created_ts >= X limit 100 → objects", unit: "queries/s", inputs: min(starts.count, 500),
                perSample: 100, goal: 0.8,
                store: { try await store.created(since: starts[$0]) },
                floor: { try floor.created(since: starts[$0], prepared: $1) })
        }
        if configuration.runs("pair") { try await pairs() }
        if configuration.runs("scan") {
            let type = dataset.scanType
            section.plans["full scan type == video"] = store.explain(["type": .string(type)])
            try await read(
                "full scan, type == \"video\" → objects", unit: "scans/s", inputs: 1, perSample: 1, goal: 0.8,
                store: { _ in try await store.messages(ofType: type) },
                floor: { try floor.messages(ofType: type, prepared: $1) }
            )
        }
    }

    /// Sender and recipient, over the single-field indexes or (once built) the compound one.
    private func pairs() async throws {
        let store = self.store!, floor = self.floor!
        let pairs = dataset.pairs
        let suffix = floor.hasPairIndex ? "compound index" : "single-field indexes"
        section.plans["sender and recipient, \(suffix)"] = store.explain(
            ["from_user_key": .string(pairs[0].from), "to_user_key": .string(pairs[0].to)])
        try await read(
            "sender and recipient (\(suffix))", unit: "queries/s", inputs: min(pairs.count, 1_000), perSample: 500,
            goal: 0.8,
            store: { try await store.messages(from: pairs[$0].from, to: pairs[$0].to) },
            floor: { try floor.messages(from: pairs[$0].from, to: pairs[$0].to, prepared: $1) })
    }
}
