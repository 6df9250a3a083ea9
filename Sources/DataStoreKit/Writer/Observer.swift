import Synchronization

/// One live observation's mailbox: a flag, not a queue, so a burst of commits while its consumer
/// is busy comes down to one refresh.
final class Observer: Sendable {
    private struct State {
        var changed = false
        var ended = false
        var waiting: CheckedContinuation<Bool, Never>?
        var cancelled = false
    }

    let id: Int
    let collection: String
    private let state = Mutex(State())

    init(id: Int, collection: String) {
        self.id = id
        self.collection = collection
    }

    /// A commit touched the collection: a waiting consumer wakes, a busy one finds the flag set.
    func markChanged() {
        let waiting = state.withLock { state in
            defer { state.waiting = nil }
            if state.waiting == nil { state.changed = true }
            return state.waiting
        }
        waiting?.resume(returning: true)
    }

    /// The store closed: the observation ends once its last change is taken.
    func end() {
        let waiting = state.withLock { state in
            state.ended = true
            defer { state.waiting = nil }
            return state.waiting
        }
        waiting?.resume(returning: false)
    }

    /// Waits for a change since the last call: `true`, or `false` when the store closed or the
    /// task was cancelled.
    func waitForChange() async -> Bool {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let outcome = state.withLock { state -> Bool? in
                    if state.cancelled { return false }
                    if state.changed {
                        state.changed = false
                        return true
                    }
                    if state.ended { return false }
                    state.waiting = continuation
                    return nil
                }
                if let outcome { continuation.resume(returning: outcome) }
            }
        } onCancel: {
            let waiting = state.withLock { state in
                state.cancelled = true
                defer { state.waiting = nil }
                return state.waiting
            }
            waiting?.resume(returning: false)
        }
    }
}
