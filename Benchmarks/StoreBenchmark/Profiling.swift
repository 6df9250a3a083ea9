// Where the time goes: per-thread CPU time (from /proc) for timing breakdowns in the report, and
// `--profile WORKLOAD`, which runs only DataStoreKit's side of one workload in a loop so that
// `perf record` or `valgrind --tool=callgrind` see nothing else.
import DataStoreCore
import DataStoreKit
import Foundation
#if canImport(Glibc)
import Glibc
#endif

enum ThreadTimes {
    /// CPU seconds (user + system) used so far by this process's threads whose name starts with
    /// `prefix` (Linux truncates thread names to 15 bytes).
    static func cpuSeconds(threadsNamed prefix: String) -> Double {
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        guard let tasks = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task") else { return .nan }
        var total = 0.0
        for task in tasks {
            guard let comm = try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8),
                comm.hasPrefix(String(prefix.prefix(15))),
                let stat = try? String(contentsOfFile: "/proc/self/task/\(task)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { continue }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            // After the command: state is field 3, utime 14, stime 15.
            guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { continue }
            total += (user + system) / ticks
        }
        return total
    }

    /// Bytes this process has passed to write calls so far (`wchar` in /proc/self/io). The
    /// kernel's `write_bytes` is not used: for LMDB's scattered 4 KiB page writes it counts
    /// several times what reaches the disk.
    static func bytesWrittenToDisk() -> Int { ioCounter("wchar") }

    /// Write calls this process has made so far (`syscw` in /proc/self/io).
    static func writeCalls() -> Int { ioCounter("syscw") }

    private static func ioCounter(_ name: String) -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/io", encoding: .utf8) else { return 0 }
        for line in text.split(separator: "\n") where line.hasPrefix(name + ":") {
            return Int(line.dropFirst(name.count + 1).trimmingCharacters(in: .whitespaces)) ?? 0
        }
        return 0
    }

    /// CPU seconds used so far by the whole process.
    static func processCPUSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }
}

/// ``profileLoop(seconds:operations:_:)`` after 16 calls of `body` outside it when the count is
/// exact: first calls resolve symbols, instantiate type metadata and fill caches, which an
/// instruction count per operation should not spread over the operations counted.
func profiled(seconds: Double, operations: Int?, _ body: (Int) throws -> UInt64) rethrows -> Int {
    if operations != nil {
        var sink: UInt64 = 0
        for iteration in 0..<16 { sink &+= try body(iteration) }
        blackHole(sink)
    }
    return try profileLoop(seconds: seconds, operations: operations, body)
}

/// Runs `body` repeatedly for about `seconds` of wall time, or exactly `operations` times when given
/// (so an instruction count divides by a known number); a separate function so a profiler can be
/// told to collect only inside it (`valgrind --tool=callgrind --toggle-collect='*profileLoop*'`).
@inline(never)
func profileLoop(seconds: Double, operations: Int? = nil, _ body: (Int) throws -> UInt64) rethrows -> Int {
    let end = Clock.wall() + UInt64(seconds * 1e9)
    var iteration = 0
    var sink: UInt64 = 0
    if let operations {
        while iteration < operations {
            sink &+= try body(iteration)
            iteration += 1
        }
    }
    // The clock is read once per 64 operations, so it costs the loop next to nothing.
    while operations == nil && Clock.wall() < end {
        for _ in 0..<64 {
            sink &+= try body(iteration)
            iteration += 1
        }
    }
    blackHole(sink)
    return iteration
}

extension BenchmarkRun {
    static let profileWorkloads =
        [
            "load", "get", "get-codable", "range", "range-codable", "range-covering", "pair", "pair-compound",
            "pair-compound-codable", "pair-compound-prepared", "empty", "empty-prepared", "scan", "build", "commit",
            "commit1", "events",
            "events1",
            "events4", "raw-events1", "raw-events4", "raw-single1", "raw-commit1"
        ] + rawReadProfiles

    /// Loads DataStoreKit alone, then loops over one of its workloads.
    func profile(_ workload: String, seconds: Double) async throws {
        if workload == "events" { return try await profileEvents(seconds: seconds) }
        if let (saves, tasks) = SaveProfile.parse(workload) { return try await profileSaves(saves, tasks: tasks) }
        if workload == "raw-commit1" { return try await profileRawSingleCommits() }
        if Self.rawReadProfiles.contains(workload) { return try profileRaw(workload, seconds: seconds) }
        let messages = dataset.messages
        let batches = stride(from: 0, to: messages.count, by: 1_000).map {
            messages[$0..<min($0 + 1_000, messages.count)]
        }
        progress("profile: loading DataStoreKit alone…")
        var start = Clock.wall()
        let cpuBefore = (ThreadTimes.processCPUSeconds(), ThreadTimes.bytesWrittenToDisk())
        for batch in batches { try await store.add(batch) }
        let loadSeconds = Double(Clock.wall() - start) / 1e9
        let metrics = store.metrics
        progress(
            "  \(grouped(Double(messages.count) / loadSeconds)) docs/s; process CPU \(fixed(ThreadTimes.processCPUSeconds() - cpuBefore.0, 2)) s, "
                + "\(fixed(Double(ThreadTimes.bytesWrittenToDisk() - cpuBefore.1) / 1_048_576, 0)) MiB written, "
                + "in write transactions \(fixed(Double(metrics.commitNanoseconds) / 1e9, 2)) s over \(metrics.batches) batches, wall \(fixed(loadSeconds, 2)) s"
        )
        if workload == "load" { return }
        if workload == "build" { return try await profileBuilds() }
        if ["pair-compound", "pair-compound-codable", "pair-compound-prepared", "empty", "empty-prepared"].contains(
            workload)
        {
            try await store.buildPairIndex()
        }
        if workload == "range-covering" { try await store.coverCreated() }
        if workload == "commit1" { return try await profileSingleCommits() }
        if workload == "commit" {
            let tasks = 64
            let perTask = max(1, configuration.commitsPerConfiguration / tasks)
            progress("profile: DataStoreKit group commit, \(tasks) tasks × \(perTask) saves…")
            start = Clock.wall()
            let before = (store.metrics, ThreadTimes.processCPUSeconds())
            try await storeCommits(tasks: tasks, perTask: perTask, backend: CommitBackend.dataStoreKit)
            let after = store.metrics
            let batches = Double(after.batches - before.0.batches)
            progress(
                "  wall \(fixed(Double(Clock.wall() - start) / 1e9, 2)) s, \(Int(batches)) batches; per batch: in transaction "
                    + "\(fixed(Double(after.commitNanoseconds - before.0.commitNanoseconds) / batches / 1e6, 2)) ms; "
                    + "process CPU \(fixed(ThreadTimes.processCPUSeconds() - before.1, 2)) s")
            return
        }
        let ids = dataset.lookupIDs
        let starts = dataset.rangeStarts
        let pairs = dataset.pairs
        progress("profile: DataStoreKit \(workload) for \(fixed(seconds, 0)) s (profileLoop)…")
        let cpu = Clock.threadCPU()
        let operations: Int
        switch workload {
        case "get", "get-codable":
            let codable = workload.hasSuffix("-codable")
            operations = try profiled(seconds: seconds, operations: configuration.profileOperations) {
                fold([try store.get(id: ids[$0 % ids.count], codable: codable)], full: false).checksum
            }
        case "range", "range-codable", "range-covering":
            let codable = workload.hasSuffix("-codable")
            operations = try profiled(seconds: seconds, operations: configuration.profileOperations) {
                fold(try store.created(since: starts[$0 % starts.count], codable: codable), full: false).checksum
            }
        case "pair", "pair-compound", "pair-compound-codable":
            let codable = workload.hasSuffix("-codable")
            operations = try profiled(seconds: seconds, operations: configuration.profileOperations) { index in
                let pair = pairs[index % pairs.count]
                return fold(try store.messages(from: pair.from, to: pair.to, codable: codable), full: false).checksum
            }
        case "pair-compound-prepared":
            operations = try profiled(seconds: seconds, operations: configuration.profileOperations) { index in
                let pair = pairs[index % pairs.count]
                return fold(try store.preparedMessages(from: pair.from, to: pair.to), full: false).checksum
            }
        case "empty":
            // The fixed cost of a query: a compound point query that matches nothing.
            operations = try profiled(seconds: seconds, operations: configuration.profileOperations) { index in
                fold(try store.messages(from: "nobody-\(index & 7)", to: "nobody"), full: false).checksum
            }
        case "empty-prepared":
            operations = try profiled(seconds: seconds, operations: configuration.profileOperations) { index in
                fold(try store.preparedMessages(from: "nobody-\(index & 7)", to: "nobody"), full: false).checksum
            }
        case "scan":
            operations = try profiled(seconds: seconds, operations: configuration.profileOperations) { _ in
                fold(try store.messages(ofType: dataset.scanType), full: false).checksum
            }
        default:
            throw BenchmarkFailure("--profile \(workload): one of \(Self.profileWorkloads.joined(separator: ", "))")
        }
        progress(
            "  \(operations) operations, \(fixed(Double(Clock.threadCPU() - cpu) / Double(operations), 0)) ns CPU each")
    }
}

extension BenchmarkRun {
    /// `--profile events`: only DataStoreKit's side of the event-log group commit at 64 savers,
    /// in a fresh store, for `seconds`.
    func profileEvents(seconds: Double) async throws {
        let path = configuration.directory + "/datastorekit-events-profile"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        let (store, events) = try await Self.openEventStore(path: path, mapSize: 1 << 30)
        defer { store.close() }
        let tasks = 64
        // Enough for 40 k saves/s, so generating the pool stays a small part of a profile.
        let perTask = max(100, Int(seconds * 40_000) / tasks)
        progress("profile: DataStoreKit event log, \(tasks) tasks for \(fixed(seconds, 0)) s…")
        let pool = newEvents(tasks: tasks, perTask: perTask, tag: "profile")
        let cpu = (ThreadTimes.processCPUSeconds(), ThreadTimes.cpuSeconds(threadsNamed: "DataStoreWriter"))
        let result = try await saveInTasks(tasks, pool, perTask: perTask, until: Clock.wall() + UInt64(seconds * 1e9)) {
            event in
            try await Self.saveInContext(event, store: store, events: events)
        }
        let metrics = store.writerMetrics
        let saves = Double(result.latencies.count)
        progress(
            "  \(result.latencies.count) saves, \(grouped(saves / (Double(result.nanoseconds) / 1e9))) saves/s, "
                + "\(metrics.batches) batches (mean \(fixed(Double(metrics.committedChangeSets) / Double(max(1, metrics.batches)), 1))), "
                + "\(fixed(Double(metrics.commitNanoseconds) / Double(max(1, metrics.batches)) / 1e6, 2)) ms each in the transaction; CPU per save: "
                + "process \(fixed((ThreadTimes.processCPUSeconds() - cpu.0) / saves * 1e6, 1)) µs, writer thread "
                + "\(fixed((ThreadTimes.cpuSeconds(threadsNamed: "DataStoreWriter") - cpu.1) / saves * 1e6, 1)) µs")
    }
}

/// What this process has written so far, and its CPU time.
struct IOCounters {
    let bytes = ThreadTimes.bytesWrittenToDisk()
    let calls = ThreadTimes.writeCalls()
    let cpuSeconds = ThreadTimes.processCPUSeconds()
}
