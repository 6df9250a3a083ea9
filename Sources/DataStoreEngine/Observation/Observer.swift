import DataStoreCore
import Synchronization

/// One live observation's mailbox: what changed since its consumer last looked, not a queue, so a
/// burst of commits while the consumer is busy comes down to one refresh.
package final class Observer: Sendable {
    private struct State {
        /// `nil` while nothing changed.
        var touched: TouchedIDs?
        var ended = false
        var waiting: CheckedContinuation<TouchedIDs?, Never>?
        var cancelled = false
    }

    let id: Int
    let collection: String
    private let state = Mutex(State())

    init(id: Int, collection: String) {
        self.id = id
        self.collection = collection
    }

    /// A commit touched these ids of the collection (`nil`: unknown ones): a waiting consumer
    /// wakes, a busy one finds them noted.
    func markChanged(_ ids: [Value]?) {
        let (waiting, touched) = state.withLock { state in
            let touched = (state.touched ?? .none).adding(ids)
            defer { state.waiting = nil }
            if state.waiting == nil { state.touched = touched }
            return (state.waiting, touched)
        }
        waiting?.resume(returning: touched)
    }

    /// The store closed: the observation ends once its last change is taken.
    func end() {
        let waiting = state.withLock { state in
            state.ended = true
            defer { state.waiting = nil }
            return state.waiting
        }
        waiting?.resume(returning: nil)
    }

    /// Waits for a change since the last call and returns the ids touched, or `nil` when the
    /// store closed or the task was cancelled.
    package func waitForChange() async -> TouchedIDs? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                enum Outcome {
                    case now(TouchedIDs?)
                    case parked
                }
                let outcome = state.withLock { state -> Outcome in
                    if state.cancelled { return .now(nil) }
                    if let touched = state.touched {
                        state.touched = nil
                        return .now(touched)
                    }
                    if state.ended { return .now(nil) }
                    state.waiting = continuation
                    return .parked
                }
                if case .now(let touched) = outcome { continuation.resume(returning: touched) }
            }
        } onCancel: {
            let waiting = state.withLock { state in
                state.cancelled = true
                defer { state.waiting = nil }
                return state.waiting
            }
            waiting?.resume(returning: nil)
        }
    }
}
