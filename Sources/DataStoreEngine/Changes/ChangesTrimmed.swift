package import DataStoreCore

/// Why a change feed cannot resume where it was asked to: commits after that position were
/// trimmed. The `underlying` error of ``/DataStoreCore/DataStoreError/Code/changesTrimmed``.
public struct ChangesTrimmed: Error, Sendable, Hashable {
    /// The position the feed was asked to resume after.
    public let requested: CommitID
    /// The newest commit trimmed away.
    public let trimmedThrough: CommitID
    /// The oldest commit still in the feed, `nil` when none is (every commit recorded was trimmed;
    /// resume after ``trimmedThrough``).
    public let oldestAvailable: CommitID?

    package init(requested: CommitID, trimmedThrough: CommitID, oldestAvailable: CommitID?) {
        self.requested = requested
        self.trimmedThrough = trimmedThrough
        self.oldestAvailable = oldestAvailable
    }

    /// The error the feed throws.
    package var error: DataStoreError {
        let oldest = oldestAvailable.map { "the oldest still available is \($0)" } ?? "no commit is available yet"
        return DataStoreError(
            .changesTrimmed,
            "the changes after \(requested) were trimmed through \(trimmedThrough); \(oldest)"
                + " (resume after \(trimmedThrough), or raise the retention in the store's Options.changeFeed)",
            underlying: self)
    }
}
