// `--profile pg-…` and `--profile libpq-…`: one side of one PostgreSQL read workload in a loop, so
// that a profiler sees the client's work alone (the server's is in another process). A fresh
// database is loaded with only that side's rows, then the loop runs exactly
// `--profile-operations` reads; Benchmarks/pg-instructions.sh counts two such runs and divides
// their difference.
import Foundation

extension PostgresBenchmark {
    /// The read workloads a PostgreSQL profile can loop over, each for both sides.
    static let profileReads = ["get", "range", "pair", "pair-compound", "scan"]

    /// The `--profile` names of the PostgreSQL reads: `pg-WORKLOAD` (DataStoreKit) and `libpq-WORKLOAD`.
    static let profileWorkloads = profileReads.flatMap { ["pg-\($0)", "libpq-\($0)"] }

    /// Runs the PostgreSQL profile `workload` against the server `PG*` names.
    static func profile(_ workload: String, configuration: Configuration, dataset: Dataset) async throws {
        guard configuration.postgresServer != nil else {
            throw BenchmarkFailure(
                "--profile \(workload) needs a PostgreSQL server: run it in Tests/Postgres/with-cluster.sh")
        }
        let floorSide = workload.hasPrefix("libpq-")
        let read = String(workload.drop(while: { $0 != "-" }).dropFirst())
        guard profileReads.contains(read) else {
            throw BenchmarkFailure("--profile \(workload): one of \(profileWorkloads.joined(separator: ", "))")
        }
        let benchmark = try PostgresBenchmark(configuration, dataset: dataset, server: configuration.postgresServer!)
        do {
            try await benchmark.profile(read, floorSide: floorSide)
        } catch {
            benchmark.cleanUp()
            throw error
        }
        benchmark.cleanUp()
    }

    private func profile(_ read: String, floorSide: Bool) async throws {
        let conninfo = "dbname=\(database)"
        floor = try LibpqBackend(conninfo: conninfo)
        if !floorSide {
            store = try await PostgresBackend(conninfo: conninfo, reads: configuration.postgresReads)
        }
        let messages = dataset.messages
        progress("profile: loading \(floorSide ? "the libpq floor" : "DataStoreKit on PostgreSQL") alone…")
        for start in stride(from: 0, to: messages.count, by: 1_000) {
            let batch = messages[start..<min(start + 1_000, messages.count)]
            if floorSide { try floor.insert(batch) } else { try await store.add(batch) }
        }
        if read == "pair-compound" {
            if floorSide { try floor.buildPairIndex() } else { try await store.buildPairIndex() }
        }
        try floor.analyze()
        let operation = try operation(read, floorSide: floorSide)
        let count = configuration.profileOperations ?? 1_000
        var sink: UInt64 = 0
        for input in 0..<16 { sink &+= try await operation(input) }
        progress("profile: \(floorSide ? "libpq" : "DataStoreKit") \(read), \(count) reads…")
        let cpu = ThreadTimes.processCPUSeconds()
        let start = Clock.wall()
        for input in 0..<count { sink &+= try await operation(input) }
        blackHole(sink)
        progress(
            "  \(fixed(Double(Clock.wall() - start) / Double(count) / 1e3, 1)) µs wall, "
                + "\(fixed((ThreadTimes.processCPUSeconds() - cpu) / Double(count) * 1e6, 1)) µs process CPU per read")
    }

    /// One read of `read` for input `input`, folded to a checksum.
    private func operation(_ read: String, floorSide: Bool) throws -> (Int) async throws -> UInt64 {
        let ids = dataset.lookupIDs, starts = dataset.rangeStarts, pairs = dataset.pairs, type = dataset.scanType
        if floorSide {
            let floor = self.floor!
            switch read {
            case "get": return { fold([try floor.get(id: ids[$0 % ids.count])], full: false).checksum }
            case "range": return { fold(try floor.created(since: starts[$0 % starts.count]), full: false).checksum }
            case "scan": return { _ in fold(try floor.messages(ofType: type), full: false).checksum }
            default:
                return {
                    let pair = pairs[$0 % pairs.count]
                    return fold(try floor.messages(from: pair.from, to: pair.to), full: false).checksum
                }
            }
        }
        let store = self.store!
        switch read {
        case "get": return { fold([try await store.get(id: ids[$0 % ids.count])], full: false).checksum }
        case "range": return { fold(try await store.created(since: starts[$0 % starts.count]), full: false).checksum }
        case "scan": return { _ in fold(try await store.messages(ofType: type), full: false).checksum }
        default:
            return {
                let pair = pairs[$0 % pairs.count]
                return fold(try await store.messages(from: pair.from, to: pair.to), full: false).checksum
            }
        }
    }
}
