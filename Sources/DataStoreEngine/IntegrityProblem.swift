/// A disagreement found by a store's check: a record, an index entry or a page that is not what
/// it should be.
public struct IntegrityProblem: Sendable, Hashable, CustomStringConvertible {
    /// The collection concerned.
    public var collection: String
    /// The index concerned, if any.
    public var index: String?
    /// What is wrong, naming the record or entry.
    public var message: String

    public var description: String {
        "\(collection)\(index.map { " index \($0)" } ?? ""): \(message)"
    }

    /// A problem found by another backend's check.
    package init(collection: String, index: String?, message: String) {
        self.collection = collection
        self.index = index
        self.message = message
    }
}
