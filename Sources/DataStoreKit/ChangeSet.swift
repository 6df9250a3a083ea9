import LMDB

/// One unit of work for the writer: a function applied inside its own nested transaction.
///
/// The writer calls `apply` on its own thread, inside a nested write transaction; if `apply`
/// throws, only that nested transaction is rolled back and only this change set's caller sees the
/// error. `apply` must not block or wait for anything: every other change set in the batch is
/// waiting for it.
struct ChangeSet: Sendable {
    /// Applies the change inside `transaction`, returning what the caller is told on success.
    let apply: @Sendable (inout WriteTransaction) throws -> any Sendable
    /// An estimate of the bytes the change writes, for bounding batches.
    let estimatedBytes: Int
}

/// The identity of a committed LMDB write transaction: the transaction id it committed as.
/// Ids only grow, so they order commits.
public struct CommitID: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// LMDB's transaction id.
    public let rawValue: Int
    /// Wraps a transaction id.
    public init(rawValue: Int) { self.rawValue = rawValue }
    public static func < (lhs: CommitID, rhs: CommitID) -> Bool { lhs.rawValue < rhs.rawValue }
    public var description: String { "commit \(rawValue)" }
}
