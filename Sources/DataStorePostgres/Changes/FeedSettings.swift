import DataStoreEngine

/// What the writer does for the change feed: record each commit in the outbox, wake listeners
/// with `NOTIFY`, and trim commits past their age or past the outbox's size.
struct FeedSettings: Sendable {
    /// `NOTIFY` listeners of each commit (servers without `LISTEN/NOTIFY` are polled instead).
    var notify: Bool
    /// Commits older than this are trimmed (`nil`: kept).
    var maxAge: Duration?
    /// The oldest commits are trimmed while the outbox's rows hold more than this many bytes
    /// (`nil`: whatever its size).
    var maxBytes: Int? = nil

    /// How often the writer trims by age: often enough that a log past its age shrinks steadily,
    /// not so often that every batch pays for a look at the oldest rows.
    var trimInterval: Duration? {
        maxAge.map { min($0 / 8, .seconds(1)) }
    }
}
