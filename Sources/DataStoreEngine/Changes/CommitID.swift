/// The identity of a commit and its place in the store's commit order: ids only grow, so they
/// order commits, but they are not consecutive. A change feed consumer stores the last one it
/// handled to resume after it (`DataStore.changes(after:)`).
///
/// In an LMDB store it is the id of the write transaction the commit was, which is also the
/// version of every document the commit wrote; in a PostgreSQL store, the server's transaction id.
///
/// A consumer keeps it as it likes: `Codable` (a JSON number), or as text
/// (`LosslessStringConvertible`: `CommitID("commit 812")` and `CommitID("812")` read what
/// `description` writes).
public struct CommitID: Sendable, Hashable, Comparable, CustomStringConvertible, LosslessStringConvertible, Codable {
    /// The id as a number: what `datastore changes --after` takes.
    public let rawValue: Int
    /// Wraps a transaction id.
    public init(rawValue: Int) { self.rawValue = rawValue }
    public static func < (lhs: CommitID, rhs: CommitID) -> Bool { lhs.rawValue < rhs.rawValue }
    /// `commit 812`.
    public var description: String { "commit \(rawValue)" }

    /// The commit `description` names — `commit 812`, or the number alone — or `nil` for text
    /// that is not a non-negative integer in either form.
    public init?(_ description: String) {
        let number = description.hasPrefix("commit ") ? description.dropFirst("commit ".count) : description[...]
        guard let value = Int(number), value >= 0, String(value) == number else { return nil }
        rawValue = value
    }

    /// Decodes the number alone.
    public init(from decoder: any Decoder) throws {
        let value = try decoder.singleValueContainer().decode(Int.self)
        guard value >= 0 else {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(codingPath: decoder.codingPath, debugDescription: "a commit id is not negative"))
        }
        rawValue = value
    }

    /// Encodes the number alone.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}
