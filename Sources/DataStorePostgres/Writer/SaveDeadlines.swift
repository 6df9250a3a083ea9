import Foundation
import Synchronization

/// The saves waiting on a ``PostgresWriter`` that have a bound, and the one thread that ends each
/// wait when its bound passes first: a thread of its own, so that a save's bound holds however busy
/// the process's other threads are (a timer on a shared queue waits for a free thread).
final class SaveDeadlines: Sendable {
    private struct State {
        /// Pending bounds by ticket: when each passes, and what to do then.
        var pending: [UInt64: (deadline: ContinuousClock.Instant, expire: @Sendable () -> Void)] = [:]
        var threadStarted = false
        var closed = false
    }

    private let state = Mutex(State())
    private let wake = NSCondition()

    /// Calls `expire` at `deadline` unless ``cancel(_:)`` is called first for `ticket`.
    func add(_ ticket: UInt64, at deadline: ContinuousClock.Instant, expire: @escaping @Sendable () -> Void) {
        let startThread = state.withLock { state -> Bool in
            state.pending[ticket] = (deadline, expire)
            defer { state.threadStarted = true }
            return !state.threadStarted
        }
        if startThread {
            let thread = Thread { [self] in run() }
            thread.name = "PostgresWriter.deadlines"
            thread.start()
        }
        wake.lock()
        wake.signal()
        wake.unlock()
    }

    /// Forgets the bound of `ticket` (its save was answered).
    func cancel(_ ticket: UInt64) {
        state.withLock { _ = $0.pending.removeValue(forKey: ticket) }
    }

    /// Ends the thread once no bound is pending.
    func close() {
        state.withLock { $0.closed = true }
        wake.lock()
        wake.signal()
        wake.unlock()
    }

    private func run() {
        while true {
            let now = ContinuousClock.now
            let (due, next, finished) = state.withLock { state in
                let due = state.pending.filter { $0.value.deadline <= now }
                for ticket in due.keys { state.pending[ticket] = nil }
                return (
                    due.values.map(\.expire), state.pending.values.map(\.deadline).min(),
                    state.closed && state.pending.isEmpty
                )
            }
            for expire in due { expire() }
            if finished { return }
            wake.lock()
            if let next {
                let (seconds, attoseconds) = ContinuousClock.now.duration(to: next).components
                let interval = max(0, Double(seconds) + Double(attoseconds) / 1e18)
                _ = wake.wait(until: Date().addingTimeInterval(interval))
            } else {
                wake.wait()
            }
            wake.unlock()
        }
    }
}
