// The PostgreSQL rows' writes after the reads: the compound index built over the loaded rows,
// updates that move index entries, and group commit into a fresh event log; then the checks.
import Foundation

extension PostgresBenchmark {
    func buildPairIndex() async throws {
        progress("PostgreSQL: building the compound index (from_user_key, to_user_key) on each backend…")
        var rates: [Double] = []
        for build in [{ try await self.store.buildPairIndex() }, { try self.floor.buildPairIndex() }] {
            let start = Clock.wall()
            try await build()
            rates.append(Double(dataset.messages.count) / (Double(Clock.wall() - start) / 1e9))
        }
        progress("  " + rates.map { grouped($0) }.joined(separator: " / ") + " docs/s")
        try floor.analyze()
        section.rows.append(
            PostgresRow(
                workload: "build compound index (existing data)", unit: "docs/s", dataStoreKit: rates[0],
                libpq: rates[1], results: [dataset.messages.count, dataset.messages.count], agree: true))
    }

    /// A tenth of the messages replaced with a new `created_ts` and recipient, in transactions of 1 000.
    func updates() async throws {
        let count = dataset.messages.count / 10
        var generator = MessageGenerator(seed: configuration.seed ^ 0x0BDA_7E5)
        let updated = dataset.messages.prefix(count).map { message in
            var message = message
            message.created_ts = generator.randomTimestamp()
            message.to_user_key = generator.randomUser()
            return message
        }
        let batches = stride(from: 0, to: count, by: 1_000).map { updated[$0..<min($0 + 1_000, count)] }
        progress("PostgreSQL updates moving index entries: \(grouped(Double(count))) in transactions of 1 000…")
        var rates: [Double] = []
        let operations: [() async throws -> Void] = [
            { for batch in batches { try await self.store.put(batch) } },
            { for batch in batches { try self.floor.update(batch) } }
        ]
        for operation in operations {
            let start = Clock.wall()
            try await operation()
            rates.append(Double(count) / (Double(Clock.wall() - start) / 1e9))
        }
        progress("  " + rates.map { grouped($0) }.joined(separator: " / ") + " docs/s")
        var sums: [UInt64] = [0, 0]
        for message in updated.prefix(200) {
            sums[0] &+= try await store.get(id: message.id).digest
            sums[1] &+= try floor.get(id: message.id).digest
        }
        let expected = updated.prefix(200).reduce(UInt64(0)) { $0 &+ $1.digest }
        section.rows.append(
            PostgresRow(
                workload: "update moving 2 index entries (1 000/txn)", unit: "docs/s", dataStoreKit: rates[0],
                libpq: rates[1], results: [count, count], agree: sums.allSatisfy { $0 == expected }))
    }

    // MARK: Group commit

    /// The event log at each saver count: DataStoreKit's coalescing writer, the same store with one
    /// change set per transaction, and libpq savers committing one row per transaction each on a
    /// connection of its own.
    func eventCommits(conninfo: String) async throws {
        let seconds = configuration.secondsPerConfiguration
        let (store, events) = try await PostgresBackend.openEventLog(conninfo: conninfo, name: "events", maxBatch: 64)
        let (single, singleEvents) = try await PostgresBackend.openEventLog(
            conninfo: conninfo, name: "events_single", maxBatch: 1)
        let floor = try LibpqEventLog(conninfo: conninfo)
        defer {
            store.close()
            single.close()
        }
        var acknowledged = [0, 0, 0]
        for tasks in configuration.taskCounts {
            let perTask = max(1, 4 * configuration.commitsPerConfiguration / tasks)
            progress(
                "PostgreSQL event log, \(tasks) concurrent savers, up to \(perTask * tasks) saves or "
                    + "\(fixed(seconds, 0)) s per backend…")
            let before = store.writerBatches
            let pool = BenchmarkRun.events(seed: configuration.seed, tasks: tasks, perTask: perTask, tag: "pg\(tasks)")
            let stored = try await saveInTasks(tasks, pool, perTask: perTask, until: deadline(seconds)) { event in
                _ = try await events.add(object: event)
            }
            let after = store.writerBatches
            acknowledged[0] += stored.latencies.count
            record(
                tasks, PostgresCommitBackend.dataStoreKit, (stored.latencies, stored.nanoseconds),
                meanBatch: Double(after.changeSets - before.changeSets) / Double(max(1, after.batches - before.batches))
            )

            let singlePool = BenchmarkRun.events(
                seed: configuration.seed, tasks: tasks, perTask: perTask, tag: "pg1-\(tasks)")
            let one = try await saveInTasks(tasks, singlePool, perTask: perTask, until: deadline(seconds)) { event in
                _ = try await singleEvents.add(object: event)
            }
            acknowledged[1] += one.latencies.count
            record(tasks, PostgresCommitBackend.dataStoreKitOnePerSave, (one.latencies, one.nanoseconds), meanBatch: 1)

            let floorPool = BenchmarkRun.events(
                seed: configuration.seed, tasks: tasks, perTask: perTask, tag: "libpq\(tasks)")
            let saved = try await floorSaves(floor, tasks: tasks, pool: floorPool, perTask: perTask, seconds: seconds)
            acknowledged[2] += saved.latencies.count
            record(tasks, PostgresCommitBackend.libpqOnePerSave, saved, meanBatch: 1)
        }
        let found = [
            try await events.count(params: nil), try await singleEvents.count(params: nil), try floor.count()
        ]
        section.checks.append(
            "event log (DSK on PG, DSK on PG 1 txn/save, libpq): \(found.map(String.init).joined(separator: ", ")) "
                + "events stored, \(acknowledged.map(String.init).joined(separator: ", ")) acknowledged: "
                + (found == acknowledged ? "ok" : "MISMATCH"))
    }

    private func deadline(_ seconds: Double) -> UInt64 { Clock.wall() + UInt64(seconds * 1e9) }

    /// `tasks` OS threads, each with its own connection, saving its slice of `pool` one row per transaction.
    private func floorSaves(
        _ floor: LibpqEventLog, tasks: Int, pool: [Message], perTask: Int, seconds: Double
    ) async throws -> (latencies: [UInt64], nanoseconds: UInt64) {
        let connections = try (0..<tasks).map { _ in try floor.saver() }
        defer { for connection in connections { connection.close() } }
        let end = deadline(seconds)
        let result = await onThreads(tasks) { index in
            var latencies: [UInt64] = []
            for event in pool[(index * perTask)..<((index + 1) * perTask)] {
                let start = Clock.wall()
                if start >= end { break }
                try LibpqEventLog.save(event, on: connections[index])
                latencies.append(Clock.wall() - start)
            }
            return latencies
        }
        if let failure = result.failures.first { throw BenchmarkFailure("libpq savers failed: \(failure)") }
        return (result.latencies, result.nanoseconds)
    }

    private func record(
        _ tasks: Int, _ backend: String, _ result: (latencies: [UInt64], nanoseconds: UInt64), meanBatch: Double
    ) {
        let row = CommitRow(
            tasks: tasks, backend: backend, commits: result.latencies.count,
            commitsPerSecond: Double(result.latencies.count) / (Double(result.nanoseconds) / 1e9),
            latency: LatencyStats(result.latencies), meanBatch: meanBatch)
        progress(
            "  \(backend.padding(toLength: 26, withPad: " ", startingAt: 0)) \(grouped(row.commitsPerSecond)) saves/s, "
                + "p50 \(fixed(row.latency.p50Microseconds, 0)) µs, p99 \(fixed(row.latency.p99Microseconds, 0)) µs, "
                + "mean batch \(fixed(meanBatch, 1))")
        section.eventCommits.append(row)
    }

    // MARK: Checks

    /// Both tables hold the dataset; 500 sender-and-recipient queries and the full scan agree.
    func verify() async throws {
        progress("PostgreSQL: verifying the two backends agree…")
        let counts = [try await store.count(), try floor.count()]
        var sums: [UInt64] = [0, 0]
        var sizes = [0, 0]
        for pair in dataset.pairs.prefix(500) {
            for (index, found) in [
                try await store.messages(from: pair.from, to: pair.to), try floor.messages(from: pair.from, to: pair.to)
            ].enumerated() {
                sizes[index] += found.count
                sums[index] &+= fold(found).checksum
            }
        }
        let scans = [try await store.messages(ofType: dataset.scanType), try floor.messages(ofType: dataset.scanType)]
        let scanAgree = scans[0].count == scans[1].count && fold(scans[0]).checksum == fold(scans[1]).checksum
        section.checks.append(
            "documents (DSK on PG, libpq): \(counts[0]), \(counts[1]), expected \(dataset.messages.count): "
                + (counts.allSatisfy { $0 == dataset.messages.count } ? "ok" : "MISMATCH")
                + "; 500 sender-and-recipient queries (\(sizes[0]) documents): "
                + (sizes[0] == sizes[1] && sums[0] == sums[1] ? "ok" : "MISMATCH")
                + "; the full scan (\(scans[0].count) documents): \(scanAgree ? "ok" : "MISMATCH")")
    }
}
