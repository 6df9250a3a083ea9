// Clocks, samples and latency statistics.
import Foundation
#if canImport(Glibc)
import Glibc
#endif

enum Clock {
    /// CPU time consumed by this thread (user + system), in nanoseconds. Read workloads are timed
    /// with it: they run on one thread, and time spent descheduled on a shared machine is not counted.
    static func threadCPU() -> UInt64 { read(CLOCK_THREAD_CPUTIME_ID) }

    /// Monotonic wall-clock time, in nanoseconds. Write workloads are timed with it: they wait
    /// for the disk and for other threads, and that waiting is what they measure.
    static func wall() -> UInt64 { read(CLOCK_MONOTONIC) }

    private static func read(_ clock: clockid_t) -> UInt64 {
        var now = timespec()
        clock_gettime(clock, &now)
        return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
    }
}

/// Percentiles of a set of latencies (nanoseconds).
struct LatencyStats: Codable, Sendable {
    var count: Int
    var p50Microseconds: Double
    var p99Microseconds: Double
    var maxMicroseconds: Double

    init(_ nanoseconds: [UInt64]) {
        let sorted = nanoseconds.sorted()
        count = sorted.count
        func at(_ fraction: Double) -> Double {
            guard !sorted.isEmpty else { return .nan }
            let index = min(sorted.count - 1, Int((Double(sorted.count) * fraction).rounded(.down)))
            return Double(sorted[index]) / 1_000
        }
        p50Microseconds = at(0.50)
        p99Microseconds = at(0.99)
        maxMicroseconds = sorted.last.map { Double($0) / 1_000 } ?? .nan
    }
}

/// The result of one read workload on one backend: the median sample's rate and what the work
/// produced (results and a checksum that must agree across backends).
struct Sampled {
    var operationsPerSecond: Double
    var results: Int
    var checksum: UInt64
}

/// Measures several backends on one read workload: a reference pass over every input on each
/// (the warm-up, and the results and full checksum compared across backends), then `samples`
/// rounds in which each backend in turn runs `perSample` operations timed with the thread's CPU
/// clock (`full` false: a cheap fold instead of the byte-by-byte digest).
/// Interleaving the rounds exposes every backend to the same machine state; each backend's rate
/// is its median round.
func sampleInterleaved(
    backends: Int,
    inputs: Int,
    perSample: Int,
    samples: Int,
    _ operation: (_ backend: Int, _ input: Int, _ full: Bool) throws -> (results: Int, checksum: UInt64)
) rethrows -> [Sampled] {
    var measured: [Sampled] = []
    for backend in 0..<backends {
        var results = 0
        var checksum: UInt64 = 0
        for input in 0..<inputs {
            let outcome = try operation(backend, input, true)
            results += outcome.results
            checksum &+= outcome.checksum
        }
        measured.append(Sampled(operationsPerSecond: 0, results: results, checksum: checksum))
    }
    var rates = Array(repeating: [Double](), count: backends)
    var cursor = 0
    var sink: UInt64 = 0
    for _ in 0..<samples {
        let first = cursor
        for index in 0..<backends {
            cursor = first
            let start = Clock.threadCPU()
            for _ in 0..<perSample {
                sink &+= try operation(index, cursor, false).checksum
                cursor = (cursor + 1) % inputs
            }
            let elapsed = max(1, Clock.threadCPU() - start)
            rates[index].append(Double(perSample) / (Double(elapsed) / 1e9))
        }
    }
    blackHole(sink)
    for index in measured.indices {
        measured[index].operationsPerSecond = rates[index].sorted()[samples / 2]
    }
    return measured
}

/// Keeps a value alive so the optimiser cannot drop the work that made it.
@inline(never)
func blackHole(_ value: UInt64) {
    if value == 0x1234_5678_9ABC_DEF0 { print("") }
}

/// A value shown with thousands separators ("1 234 567").
func grouped(_ value: Double) -> String {
    guard value.isFinite else { return "—" }
    let digits = String(Int(value.rounded()))
    var out: [Character] = []
    for (index, character) in digits.reversed().enumerated() {
        if index > 0 && index % 3 == 0 && character != "-" { out.append(" ") }
        out.append(character)
    }
    return String(out.reversed())
}

/// A number with a fixed count of decimals.
func fixed(_ value: Double, _ decimals: Int) -> String {
    guard value.isFinite else { return "—" }
    return String(format: "%.\(decimals)f", value)
}

/// One backend's figures from ``sampleWallInterleaved(backends:inputs:perSample:samples:_:)``.
struct WallSampled {
    var operationsPerSecond: Double
    /// The client process's CPU time per operation in the median sample (the server's is not in it).
    var clientCPUMicroseconds: Double
    var results: Int
    var checksum: UInt64
}

/// ``sampleInterleaved(backends:inputs:perSample:samples:_:)`` for backends that wait for a server:
/// timed with the wall clock, since the work happens in another process, and with the client
/// process's CPU time per operation beside it.
func sampleWallInterleaved(
    backends: Int,
    inputs: Int,
    perSample: Int,
    samples: Int,
    _ operation: (_ backend: Int, _ input: Int, _ full: Bool) async throws -> (results: Int, checksum: UInt64)
) async rethrows -> [WallSampled] {
    var measured: [WallSampled] = []
    for backend in 0..<backends {
        var results = 0
        var checksum: UInt64 = 0
        for input in 0..<inputs {
            let outcome = try await operation(backend, input, true)
            results += outcome.results
            checksum &+= outcome.checksum
        }
        measured.append(
            WallSampled(operationsPerSecond: 0, clientCPUMicroseconds: 0, results: results, checksum: checksum))
    }
    var rounds = Array(repeating: [(rate: Double, cpu: Double)](), count: backends)
    var cursor = 0
    var sink: UInt64 = 0
    for _ in 0..<samples {
        let first = cursor
        for index in 0..<backends {
            cursor = first
            let cpu = ThreadTimes.processCPUSeconds()
            let start = Clock.wall()
            for _ in 0..<perSample {
                sink &+= try await operation(index, cursor, false).checksum
                cursor = (cursor + 1) % inputs
            }
            let elapsed = max(1, Clock.wall() - start)
            rounds[index].append(
                (
                    Double(perSample) / (Double(elapsed) / 1e9),
                    (ThreadTimes.processCPUSeconds() - cpu) / Double(perSample) * 1e6
                ))
        }
    }
    blackHole(sink)
    for index in measured.indices {
        let median = rounds[index].sorted { $0.rate < $1.rate }[samples / 2]
        measured[index].operationsPerSecond = median.rate
        measured[index].clientCPUMicroseconds = median.cpu
    }
    return measured
}
