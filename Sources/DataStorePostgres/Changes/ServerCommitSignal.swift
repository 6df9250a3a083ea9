import Synchronization

/// Wakes change-feed readers of a ``PostgresStore`` when a commit newer than what they have read
/// may exist: told at once of this store's own commits, and of other stores' by `LISTEN/NOTIFY`
/// or polling (``PostgresChangeSource``), which starts when the first reader waits.
///
/// A reader reads only commits below the oldest transaction still running (see
/// ``PostgresChangeSource``); while such a transaction holds the horizon back, a commit above it
/// is known but not yet readable, and readers waiting for it retry every `pollInterval` rather
/// than spinning.
final class ServerCommitSignal: Sendable {
    private struct Waiter {
        let after: Int
        let continuation: CheckedContinuation<Bool, Never>
    }

    private struct State {
        var latest: Int
        var closed = false
        var waiters: [Int: Waiter] = [:]
        var cancelled: Set<Int> = []
        var nextWaiter = 0
        /// The horizon the last read stopped at while a later commit was known.
        var laggingAt: Int?
        var watching = false
    }

    private let state: Mutex<State>
    let pollInterval: Duration
    /// Starts watching the server for other stores' commits; called once, at the first wait.
    private let watch: Mutex<(@Sendable () -> Void)?> = Mutex(nil)

    init(latest: Int, pollInterval: Duration) {
        self.state = Mutex(State(latest: latest))
        self.pollInterval = pollInterval
    }

    /// Sets what starts watching the server when a reader first waits.
    func onFirstWait(_ start: @escaping @Sendable () -> Void) { watch.withLock { $0 = start } }

    var isClosed: Bool { state.withLock { $0.closed } }

    /// A commit `commit` exists: readers waiting for one after an earlier commit wake.
    func committed(_ commit: Int) {
        let ready = state.withLock { state -> [Waiter] in
            guard commit > state.latest else { return [] }
            state.latest = commit
            let ready = state.waiters.filter { $0.value.after < commit }
            for id in ready.keys { state.waiters[id] = nil }
            return Array(ready.values)
        }
        for waiter in ready { waiter.continuation.resume(returning: true) }
    }

    /// A read stopped at `horizon`: when a later commit is known, it is not yet readable.
    func readThrough(_ horizon: Int) {
        state.withLock { state in state.laggingAt = state.latest > horizon ? horizon : nil }
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

    /// Waits until a commit after `commit` may be readable: `true`, or `false` once the store
    /// closed or the task was cancelled.
    func wait(after commit: Int) async -> Bool {
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

    private func register(_ id: Int, after commit: Int, _ continuation: CheckedContinuation<Bool, Never>) {
        let (resume, startWatching) = state.withLock { state -> (Bool?, Bool) in
            if state.cancelled.remove(id) != nil || state.closed { return (false, false) }
            if state.latest > commit { return (true, false) }
            state.waiters[id] = Waiter(after: commit, continuation: continuation)
            defer { state.watching = true }
            return (nil, !state.watching)
        }
        if let resume { continuation.resume(returning: resume) }
        if startWatching { watch.withLock { $0 }?() }
    }

    /// Whether a poller should stop, because no reader waits or the store closed; if so, the
    /// next wait starts watching again.
    func stopWatchingIfIdle() -> Bool {
        state.withLock { state in
            guard state.waiters.isEmpty || state.closed else { return false }
            state.watching = false
            return true
        }
    }
}
