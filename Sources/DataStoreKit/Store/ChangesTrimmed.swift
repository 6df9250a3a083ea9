public import DataStoreCore

extension DataStoreError.Code {
    /// The change feed was asked to resume after a commit whose successors were trimmed
    /// (``DataStore/Options/changeFeed``): the error's ``DataStoreError/underlying`` is a
    /// ``ChangesTrimmed`` naming the oldest commit still available.
    public static let changesTrimmed = DataStoreError.Code(rawValue: "changesTrimmed")
}

/// Why a change feed cannot resume where it was asked to: commits after that position were
/// trimmed. The ``DataStoreError/underlying`` error of ``DataStoreError/Code/changesTrimmed``.
public struct ChangesTrimmed: Error, Sendable, Hashable {
    /// The position the feed was asked to resume after.
    public let requested: CommitID
    /// The newest commit trimmed away.
    public let trimmedThrough: CommitID
    /// The oldest commit still in the feed, `nil` when none is (every commit recorded was trimmed;
    /// resume after ``trimmedThrough``).
    public let oldestAvailable: CommitID?

    /// The error the feed throws.
    var error: DataStoreError {
        let oldest = oldestAvailable.map { "the oldest still available is \($0)" } ?? "no commit is available yet"
        return DataStoreError(
            .changesTrimmed,
            "the changes after \(requested) were trimmed through \(trimmedThrough); \(oldest)"
                + " (resume after \(trimmedThrough), or raise DataStore.Options.changeFeed's retention)",
            underlying: self)
    }
}
