// `--profile commit1`, `raw-commit1`: the messages workload's single durable commits (one saver,
// one transaction per save) into the loaded data, with the bytes and write calls each commit
// passes to the kernel, so that what a commit writes can be compared with the raw LMDB floor's.
import DataStoreKit
import Foundation

extension BenchmarkRun {
    /// Who saves the single commits.
    enum SingleSaver {
        case dataStoreKit(StoreCollection<Message>)
        case raw(RawLMDBBackend)

        var name: String {
            switch self {
            case .dataStoreKit: "DataStoreKit 1 txn/save"
            case .raw: "raw LMDB 1 txn/save"
            }
        }

        @inline(never)
        func save(_ message: Message) async throws {
            switch self {
            case .dataStoreKit(let collection): _ = try await collection.add(object: message)
            case .raw(let raw): try raw.write { transaction in try raw.insert(message, in: transaction) }
            }
        }
    }

    /// DataStoreKit's side: one saver adding one new message at a time, each its own durable commit,
    /// with the compound index built first as in the run.
    func profileSingleCommits() async throws {
        try await store.buildPairIndex()
        var limits = WriterLimits.profiling
        limits.maxChangeSetsPerBatch = 1
        try await store.reopen(limits: limits)
        try await singleCommits(.dataStoreKit(store.messages!))
        let metrics = store.metrics
        progress("  \(metrics.batches) batches, \(metrics.callerCommits) committed on the saver's thread")
    }

    /// The raw LMDB floor's side, the raw backend loaded alone.
    func profileRawSingleCommits() async throws {
        try loadRawAlone(pairIndex: true)
        try await singleCommits(.raw(raw))
    }

    /// Saves `--profile-operations` new messages (default 2 000) one at a time, and prints the
    /// commits' p50 and p99 and what each passed to write calls.
    func singleCommits(_ saver: SingleSaver) async throws {
        let count = max(1, configuration.profileOperations ?? 2_000)
        let messages = newMessages(count, tag: "single")
        progress("profile: \(saver.name), \(count) single durable commits…")
        let before = IOCounters()
        var latencies: [UInt64] = []
        latencies.reserveCapacity(count)
        for message in messages {
            let start = Clock.wall()
            try await saver.save(message)
            latencies.append(Clock.wall() - start)
        }
        report(latencies, since: before)
    }

    private func report(_ latencies: [UInt64], since before: IOCounters) {
        let sorted = latencies.sorted()
        let now = IOCounters(), saves = Double(sorted.count)
        progress(
            "  p50 \(sorted[sorted.count / 2] / 1_000) µs, p99 \(sorted[sorted.count * 99 / 100] / 1_000) µs; per commit "
                + "\(fixed(Double(now.bytes - before.bytes) / saves, 0)) bytes in "
                + "\(fixed(Double(now.calls - before.calls) / saves, 1)) write calls, process CPU "
                + "\(fixed((now.cpuSeconds - before.cpuSeconds) / saves * 1e6, 1)) µs")
    }
}
