// `--profile events1`, `events4`, `raw-events1`, `raw-events4`, `raw-single1`: the event log's
// saves alone, a fixed number of them, for counting the write path's instructions under callgrind.
// The savers, the writer and the pool threads that resume them all work for a save, so the count
// must cover every thread (`--separate-threads=no`, no toggle): Benchmarks/instructions.sh counts a
// run of N saves and one of 2N with the same set-up, and divides the difference by N.
import CLMDB
import DataStoreCore
import DataStoreKit
import Foundation

extension BenchmarkRun {
    /// How one save profile saves: DataStoreKit's one-document contexts, the raw coalescer, or raw
    /// LMDB with one transaction per save on the saver's thread.
    enum SaveProfile: String {
        case events = "events"
        case rawEvents = "raw-events"
        case rawSingle = "raw-single"

        /// The profile and saver count a `--profile` name asks for (`events4`: four savers), or `nil`.
        static func parse(_ name: String) -> (SaveProfile, tasks: Int)? {
            let digits = name.reversed().prefix { $0.isNumber }
            guard !digits.isEmpty, let tasks = Int(String(digits.reversed())), tasks > 0,
                let profile = SaveProfile(rawValue: String(name.dropLast(digits.count)))
            else { return nil }
            return (profile, tasks)
        }
    }

    /// Saves `--profile-operations` events (default 2 000) from `tasks` savers into a fresh log
    /// with relaxed durability (data pages synced at each commit, not the meta page), so that a
    /// disk's sync time does not stretch a profile and the durable path's file-space upkeep still
    /// runs. The pool of `--profile-pool` events (default the count) is made first, whatever is saved.
    func profileSaves(_ profile: SaveProfile, tasks: Int) async throws {
        let saves = configuration.profileOperations ?? 2_000
        let perTask = max(1, saves / tasks)
        let poolPerTask = max(perTask, (configuration.profilePool ?? saves) / tasks)
        let generated = newEvents(tasks: tasks, perTask: poolPerTask, tag: "profile")
        let pool = (0..<tasks).flatMap { generated[($0 * poolPerTask)..<($0 * poolPerTask + perTask)] }
        let path = configuration.directory + "/\(profile.rawValue)-profile"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        progress("profile: \(profile.rawValue), \(tasks) savers × \(perTask) saves, relaxed durability…")
        let before = IOCounters()
        let saved: Int
        var batches = ""
        switch profile {
        case .events:
            let (store, events) = try await Self.openEventStore(
                path: path, mapSize: 1 << 30, limits: .profiling, durability: .relaxed)
            defer { store.close() }
            let result = try await saveInTasks(tasks, pool, perTask: perTask, until: .max) { event in
                try await Self.saveInContext(event, store: store, events: events)
            }
            saved = result.latencies.count
            guard try events.count() == saved else { throw BenchmarkFailure("\(profile.rawValue): events lost") }
            batches = ", \(store.writerMetrics.batches) batches"
        case .rawEvents, .rawSingle:
            let raw = try RawEventLog(path: path, mapSize: 1 << 30, flags: UInt32(MDB_NOMETASYNC))
            defer { raw.close() }
            let result: (latencies: [UInt64], nanoseconds: UInt64, failures: [String])
            if profile == .rawEvents {
                let coalescer = RawCoalescer(backend: raw)
                result = await saveOnThreads(tasks, pool, perThread: perTask, until: .max) { coalescer.save($0) }
                coalescer.stop()
                batches = ", \(coalescer.counters.batches) batches"
            } else {
                result = await saveOnThreads(tasks, pool, perThread: perTask, until: .max) { event in
                    try raw.write { transaction in try raw.insert(event, in: transaction) }
                }
            }
            if let failure = result.failures.first { throw BenchmarkFailure("\(profile.rawValue): \(failure)") }
            saved = result.latencies.count
        }
        let now = IOCounters(), count = Double(saved)
        progress(
            "  \(saved) saves\(batches), process CPU \(fixed((now.cpuSeconds - before.cpuSeconds) / count * 1e6, 1)) µs each, "
                + "\(fixed(Double(now.bytes - before.bytes) / count, 0)) bytes in "
                + "\(fixed(Double(now.calls - before.calls) / count, 1)) write calls each")
    }
}

extension WriterLimits {
    /// The default limits for a save profile: under callgrind a commit takes fifty times its time,
    /// which would pause caller commits (``maxCallerCommitDuration``) that a lone saver takes at
    /// full speed, so the profile would count another path.
    static var profiling: WriterLimits { WriterLimits(maxCallerCommitDuration: .seconds(60)) }
}
