// Plain threads for the C-level backends' concurrent savers (they block in LMDB or SQLite, so they
// get OS threads, not tasks), joined without blocking the caller's task.
import Dispatch
import Foundation
import Synchronization

private final class Collector: Sendable {
    let state = Mutex<(latencies: [UInt64], failures: [String])>(([], []))
}

/// Runs `body(0..<count)` on `count` new threads at once and returns every latency they recorded,
/// the wall time from the first start to the last end, and the errors they threw.
func onThreads(
    _ count: Int,
    _ body: @escaping @Sendable (Int) throws -> [UInt64]
) async -> (latencies: [UInt64], nanoseconds: UInt64, failures: [String]) {
    await withCheckedContinuation { continuation in
        let coordinator = Thread {
            let collector = Collector()
            let group = DispatchGroup()
            let start = Clock.wall()
            for index in 0..<count {
                group.enter()
                let thread = Thread {
                    do {
                        let latencies = try body(index)
                        collector.state.withLock { $0.latencies += latencies }
                    } catch {
                        collector.state.withLock { $0.failures.append("\(error)") }
                    }
                    group.leave()
                }
                thread.start()
            }
            group.wait()
            let elapsed = Clock.wall() - start
            let (latencies, failures) = collector.state.withLock { ($0.latencies, $0.failures) }
            continuation.resume(returning: (latencies, elapsed, failures))
        }
        coordinator.start()
    }
}

/// `count` OS threads, thread `i` saving the `i`-th slice of `perThread` messages of `pool` one
/// at a time until `deadline`: every save's latency, the wall time, and the errors thrown.
func saveOnThreads(
    _ count: Int, _ pool: [Message], perThread: Int, until deadline: UInt64,
    _ save: @escaping @Sendable (Message) throws -> Void
) async -> (latencies: [UInt64], nanoseconds: UInt64, failures: [String]) {
    await onThreads(count) { index in
        var latencies: [UInt64] = []
        for message in pool[(index * perThread)..<((index + 1) * perThread)] {
            let start = Clock.wall()
            if start >= deadline { break }
            try save(message)
            latencies.append(Clock.wall() - start)
        }
        return latencies
    }
}

/// The same from `count` tasks, for DataStoreKit's async calls.
func saveInTasks(
    _ count: Int, _ pool: [Message], perTask: Int, until deadline: UInt64,
    _ save: @escaping @Sendable (Message) async throws -> Void
) async throws -> (latencies: [UInt64], nanoseconds: UInt64) {
    let start = Clock.wall()
    let latencies = try await withThrowingTaskGroup(of: [UInt64].self) { group in
        for index in 0..<count {
            let mine = pool[(index * perTask)..<((index + 1) * perTask)]
            group.addTask {
                var latencies: [UInt64] = []
                latencies.reserveCapacity(mine.count)
                for message in mine {
                    let begin = Clock.wall()
                    if begin >= deadline { break }
                    try await save(message)
                    latencies.append(Clock.wall() - begin)
                }
                return latencies
            }
        }
        var all: [UInt64] = []
        for try await part in group { all += part }
        return all
    }
    return (latencies, Clock.wall() - start)
}
