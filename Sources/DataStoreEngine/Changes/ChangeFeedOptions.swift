/// How the store keeps its change feed (`DataStore.Options.changeFeed`): what it retains, and
/// how soon it notices commits made by other processes (docs/changes.md).
public struct ChangeFeedOptions: Sendable, Hashable {
    /// Record every commit's changes. Off, nothing is recorded: `DataStore.changes(after:)`
    /// and observations see nothing, and the writer saves the record's cost.
    public var isEnabled: Bool
    /// Commits older than this are trimmed (`nil`: kept whatever their age).
    public var maxAge: Duration?
    /// The log is trimmed, oldest first, once it takes more than this many bytes of the store
    /// (on PostgreSQL, of the outbox rows' estimated size; `nil`: whatever its size).
    public var maxBytes: Int?
    /// How often a waiting reader checks for commits of other processes (this process's
    /// commits wake it at once).
    public var pollInterval: Duration

    /// Defaults: enabled, commits kept 7 days and at most 64 MiB of log, other processes'
    /// commits seen within 100 ms.
    public init(
        isEnabled: Bool = true,
        maxAge: Duration? = .seconds(7 * 24 * 3_600),
        maxBytes: Int? = 64 << 20,
        pollInterval: Duration = .milliseconds(100)
    ) {
        self.isEnabled = isEnabled
        self.maxAge = maxAge
        self.maxBytes = maxBytes
        self.pollInterval = pollInterval
    }

    /// No feed at all.
    public static let disabled = ChangeFeedOptions(isEnabled: false)
}

extension ChangeFeedOptions {
    /// The most old commits either store trims in one commit, so trimming never makes one slow.
    package static let trimStep = 32
}
