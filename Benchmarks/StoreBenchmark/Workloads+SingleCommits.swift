// The single durable commits row: DataStoreKit's one transaction per save against raw LMDB's, in
// alternating rounds.
import DataStoreKit

extension BenchmarkRun {
    /// How many rounds each backend of the single durable commits row runs, alternating.
    static let singleCommitRounds = 4

    /// DataStoreKit (its writer reopened to commit each save alone) and raw LMDB, one saver each
    /// adding one new message at a time as its own durable commit, in ``singleCommitRounds``
    /// alternating rounds that share the row's time budget, each round's first backend swapped
    /// from the last, so that the disk's pace, which drifts over seconds, weighs on both alike.
    /// Returns each backend's saves over its rounds' time.
    func alternatingSingleCommits() async throws -> (dataStoreKit: Double, raw: Double) {
        let rounds = Self.singleCommitRounds
        let seconds = configuration.secondsPerConfiguration / Double(rounds)
        let perRound = max(1, configuration.commitsPerConfiguration / rounds)
        progress(
            "single durable commits, 1 writer: \(rounds) alternating rounds of up to \(perRound) saves or "
                + "\(fixed(seconds, 1)) s per backend…")
        try await store.reopen(limits: WriterLimits(maxChangeSetsPerBatch: 1))
        let collection = store.messages!
        let raw = self.raw
        var stored = (saves: 0, nanoseconds: UInt64(0))
        var floored = (saves: 0, nanoseconds: UInt64(0))
        var ratios: [Double] = []
        for round in 0..<rounds {
            var rates = (store: 0.0, floor: 0.0)
            for side in round % 2 == 0 ? [0, 1] : [1, 0] {
                let messages = newMessages(perRound, tag: "single\(side)-\(round)")
                let deadline = Clock.wall() + UInt64(seconds * 1e9)
                if side == 0 {
                    let (latencies, elapsed) = try await saveInTasks(1, messages, perTask: perRound, until: deadline) {
                        _ = try await collection.add(object: $0)
                    }
                    stored.saves += latencies.count
                    stored.nanoseconds += elapsed
                    rates.store = Double(latencies.count) / Double(max(1, elapsed))
                } else {
                    let result = await saveOnThreads(1, messages, perThread: perRound, until: deadline) { message in
                        try raw.write { transaction in try raw.insert(message, in: transaction) }
                    }
                    if let failure = result.failures.first { throw BenchmarkFailure("raw LMDB 1 txn/save: \(failure)") }
                    floored.saves += result.latencies.count
                    floored.nanoseconds += result.nanoseconds
                    rates.floor = Double(result.latencies.count) / Double(max(1, result.nanoseconds))
                }
            }
            ratios.append(rates.store / rates.floor)
        }
        try await store.reopen(limits: WriterLimits())
        singleCommitSaves = (stored.saves, floored.saves)
        let storeRate = Double(stored.saves) / (Double(max(1, stored.nanoseconds)) / 1e9)
        let floorRate = Double(floored.saves) / (Double(max(1, floored.nanoseconds)) / 1e9)
        progress(
            "  \(grouped(storeRate)) / \(grouped(floorRate)) commits/s (DataStoreKit 1 txn/save / raw LMDB 1 txn/save)")
        report.notes.append(
            "single durable commits, 1 writer: DataStoreKit 1 txn/save ÷ raw LMDB 1 txn/save per round: "
                + ratios.map { fixed($0, 2) }.joined(separator: ", "))
        return (storeRate, floorRate)
    }
}
