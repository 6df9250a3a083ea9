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
