import Dispatch
import LMDB
import Synchronization

/// Wakes change-log readers when a commit newer than what they have read exists.
///
/// This process's writer reports each commit at once, for the cost of a lock and, when someone
/// waits, one hand-off to a pool thread (so the writer's cost does not grow with the waiters).
/// Commits of other processes are found by polling the environment's last transaction id every
/// `pollInterval`, only while someone waits: LMDB has no notification.
final class CommitSignal: Sendable {
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
        var polling = false
        var wakeQueued = false
    }

    private let state: Mutex<State>
    private let environment: Environment
    let pollInterval: Duration

    init(environment: Environment, latest: Int, pollInterval: Duration) {
        self.environment = environment
        self.pollInterval = pollInterval
        self.state = Mutex(State(latest: latest))
    }

    /// Whether the store has closed: no commit of this process follows.
    var isClosed: Bool { state.withLock { $0.closed } }

    /// Waiters parked now (for tests that count what an observation leaves behind).
    var waiterCount: Int { state.withLock { $0.waiters.count } }

    /// Called by the writer thread after each commit, and by the poller.
    func committed(_ commit: Int) {
        let queueWake = state.withLock { state -> Bool in
            guard commit > state.latest else { return false }
            state.latest = commit
            guard !state.waiters.isEmpty, !state.wakeQueued else { return false }
            state.wakeQueued = true
            return true
        }
        if queueWake { DispatchQueue.global().async { self.wakeReady() } }
    }

    /// Ends every wait; later waits return `false` at once.
    func close() {
        let waiters = state.withLock { state in
            state.closed = true
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.continuation.resume(returning: false) }
    }

    /// Waits until a commit after `commit` exists: `true`, or `false` once the store closed or
    /// the task was cancelled.
    func wait(after commit: Int) async -> Bool {
        let id = state.withLock { state in
            defer { state.nextWaiter += 1 }
            return state.nextWaiter
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                register(id, after: commit, continuation)
            }
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

    private func register(_ id: Int, after commit: Int, _ continuation: CheckedContinuation<Bool, Never>) {
        enum Outcome {
            case resume(Bool)
            case parked(startPoller: Bool)
        }
        let outcome = state.withLock { state -> Outcome in
            if state.cancelled.remove(id) != nil || state.closed { return .resume(false) }
            if state.latest > commit { return .resume(true) }
            state.waiters[id] = Waiter(after: commit, continuation: continuation)
            defer { state.polling = true }
            return .parked(startPoller: !state.polling)
        }
        switch outcome {
        case .resume(let value): continuation.resume(returning: value)
        case .parked(let startPoller): if startPoller { startPolling() }
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

    /// Polls the last transaction id while anyone waits, for commits of other processes.
    private func startPolling() {
        Task.detached { [self] in
            while true {
                try? await Task.sleep(for: pollInterval)
                if let last = try? environment.info().lastTransactionID { committed(last) }
                let done = state.withLock { state in
                    guard state.waiters.isEmpty || state.closed else { return false }
                    state.polling = false
                    return true
                }
                if done { return }
            }
        }
    }
}
