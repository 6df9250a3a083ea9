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
