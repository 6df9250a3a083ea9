/// The identity of a commit and its place in the store's commit order: ids only grow, so they
/// order commits, but they are not consecutive. A change feed consumer stores the last one it
/// handled to resume after it (`DataStore.changes(after:)`).
///
/// In an LMDB store it is the id of the write transaction the commit was, which is also the
/// version of every document the commit wrote.
public struct CommitID: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The id as a number: what `datastore changes --after` takes.
    public let rawValue: Int
    /// Wraps a transaction id.
    public init(rawValue: Int) { self.rawValue = rawValue }
    public static func < (lhs: CommitID, rhs: CommitID) -> Bool { lhs.rawValue < rhs.rawValue }
    public var description: String { "commit \(rawValue)" }
}
