import Dispatch
import Synchronization

/// Wakes change-feed readers when a commit newer than what they have read exists: the one waiter
/// of both stores, told of the store's own commits at once and of other writers' by whatever
/// watches for them (a poll of LMDB's last transaction id, `LISTEN/NOTIFY` or a poll of the server).
///
/// A commit reported while someone waits costs its reporter a lock and one hand-off to a pool
/// thread, so the writer's cost does not grow with the waiters. The watcher starts when the first
/// reader parks; a poller (``poll(_:)``) stops once nobody waits, and the next wait starts it again.
package final class CommitSignal: Sendable {
    private struct Waiter {
        let after: Int
        let continuation: CheckedContinuation<Bool, Never>
    }

    private struct State {
        var latest: Int
        var closed = false
        var waiters: [Int: Waiter] = [:]
        /// Waiters cancelled before they were registered.
        var cancelled: Set<Int> = []
        var nextWaiter = 0
        var watching = false
        var wakeQueued = false
        /// The position the last read stopped at while a later commit was known.
        var laggingAt: Int?
    }

    private let state: Mutex<State>
    /// How long a reader whose source lags a known commit pauses, and how often a poller looks.
    package let pollInterval: Duration
    /// Starts watching for other writers' commits; called when a reader parks and none watches.
    private let watcher = Mutex<(@Sendable (CommitSignal) -> Void)?>(nil)

    package init(latest: Int, pollInterval: Duration) {
        self.state = Mutex(State(latest: latest))
        self.pollInterval = pollInterval
    }

    /// Sets what starts watching for other writers' commits; it is given this signal, so that it
    /// need not hold it (nothing here outlives the store).
    package func onFirstWait(_ start: @escaping @Sendable (CommitSignal) -> Void) {
        watcher.withLock { $0 = start }
    }

    /// Whether the store has closed: no commit of this process follows.
    package var isClosed: Bool { state.withLock { $0.closed } }

    /// Waiters parked now (for tests that count what an observation leaves behind).
    package var waiterCount: Int { state.withLock { $0.waiters.count } }

    /// A commit `commit` exists: readers waiting for one after an earlier commit wake.
    package func committed(_ commit: Int) {
        let queueWake = state.withLock { state -> Bool in
            guard commit > state.latest else { return false }
            state.latest = commit
            guard !state.waiters.isEmpty, !state.wakeQueued else { return false }
            state.wakeQueued = true
            return true
        }
        if queueWake { DispatchQueue.global().async { self.wakeReady() } }
    }

    /// A read stopped at `position`. When a later commit is known, it is not readable yet (a
    /// server shows commits only below its oldest running transaction), so a reader waiting
    /// after `position` pauses for ``pollInterval`` rather than spinning.
    package func readThrough(_ position: Int) {
        state.withLock { state in state.laggingAt = state.latest > position ? position : nil }
    }

    /// Ends every wait; later waits return `false` at once.
    package func close() {
        let waiters = state.withLock { state in
            state.closed = true
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.continuation.resume(returning: false) }
    }

    /// Waits until a commit after `commit` may be readable: `true`, or `false` once the store
    /// closed or the task was cancelled.
    package func wait(after commit: Int) async -> Bool {
        let (id, lagging) = state.withLock { state in
            defer { state.nextWaiter += 1 }
            return (state.nextWaiter, state.laggingAt == commit && state.latest > commit)
        }
        if lagging {
            try? await Task.sleep(for: pollInterval)
            return !isClosed && !Task.isCancelled
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in register(id, after: commit, continuation) }
        } onCancel: {
            let waiter = state.withLock { state in
                guard let waiter = state.waiters.removeValue(forKey: id) else {
                    state.cancelled.insert(id)
                    return nil as Waiter?
                }
                return waiter
            }
            waiter?.continuation.resume(returning: false)
        }
    }

    /// Reads `newest` every ``pollInterval`` while anyone waits, for writers that send no
    /// notification (other processes on LMDB, servers without `LISTEN/NOTIFY`).
    package func poll(_ newest: @escaping @Sendable () -> Int?) {
        Task.detached { [self] in
            while !stopWatchingIfIdle() {
                try? await Task.sleep(for: pollInterval)
                if let last = newest() { committed(last) }
            }
        }
    }

    /// Whether a watcher should stop, because no reader waits or the store closed; if so, the
    /// next wait starts watching again.
    package func stopWatchingIfIdle() -> Bool {
        state.withLock { state in
            guard state.waiters.isEmpty || state.closed else { return false }
            state.watching = false
            return true
        }
    }

    private func register(_ id: Int, after commit: Int, _ continuation: CheckedContinuation<Bool, Never>) {
        enum Outcome {
            case resume(Bool)
            case parked(startWatching: Bool)
        }
        let outcome = state.withLock { state -> Outcome in
            if state.cancelled.remove(id) != nil || state.closed { return .resume(false) }
            if state.latest > commit { return .resume(true) }
            state.waiters[id] = Waiter(after: commit, continuation: continuation)
            defer { state.watching = true }
            return .parked(startWatching: !state.watching)
        }
        switch outcome {
        case .resume(let value): continuation.resume(returning: value)
        case .parked(let startWatching): if startWatching { watcher.withLock { $0 }?(self) }
        }
    }

    private func wakeReady() {
        let ready = state.withLock { state in
            state.wakeQueued = false
            let ready = state.waiters.filter { $0.value.after < state.latest }
            for id in ready.keys { state.waiters[id] = nil }
            return Array(ready.values)
        }
        for waiter in ready { waiter.continuation.resume(returning: true) }
    }
}
