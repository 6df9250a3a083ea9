import Synchronization
import DataStoreEngine

/// What a change set committed on its caller's thread came to, handed from the commit's
/// completion back to the caller.
final class CallerOutcome: Sendable {
    private let result = Mutex<Result<(any Sendable, CommitID), any Error>?>(nil)

    /// Stores the outcome (called once, by the commit's completion).
    func set(_ outcome: Result<(any Sendable, CommitID), any Error>) {
        result.withLock { $0 = outcome }
    }

    /// The stored outcome, `nil` when the commit did not complete it.
    func take() -> Result<(any Sendable, CommitID), any Error>? { result.withLock { $0 } }
}
