/// A set of uniquely named fields: one stored object.
///
/// Field names are Swift `String` keys, so two names that are canonically equivalent
/// (`"é"` as U+00E9 or as `e` + U+0301) are one field here; the byte formats write names as
/// their exact UTF-8 bytes and order them by those bytes.
///
/// Two documents are equal when they have the same field names (by UTF-8 bytes) with equal values;
/// they are ordered as their (name, value) pairs sorted by name bytes (see ``Value``).
public struct Document: Sendable {
    /// The fields, by name.
    public var fields: [String: Value]

    /// Creates an empty document.
    public init() {
        fields = [:]
    }

    /// Creates a document holding `fields`.
    public init(_ fields: [String: Value]) {
        self.fields = fields
    }

    /// Creates a document from name–value pairs whose names must be unique.
    init(uniqueFields elements: some Sequence<(String, Value)>) {
        fields = Dictionary(
            elements,
            uniquingKeysWith: { _, _ in
                preconditionFailure("Document literal contains a field name twice")
            })
    }

    /// The value of `field`, or `nil` when the document has no such field. Setting `nil` removes
    /// the field; setting ``Value/null`` stores an explicit null.
    public subscript(_ field: String) -> Value? {
        get { fields[field] }
        set { fields[field] = newValue }
    }

    /// The number of fields.
    public var count: Int { fields.count }

    /// Whether the document has no fields.
    public var isEmpty: Bool { fields.isEmpty }

    /// The fields sorted by the UTF-8 bytes of their names: the order the byte formats use.
    ///
    /// - Complexity: O(*n* log *n*) in the number of fields.
    public var sortedFields: [(name: String, value: Value)] {
        var sorted = fields.map { (name: $0.key, value: $0.value) }
        sorted.sort { UTF8Order.compare($0.name, $1.name) < 0 }
        return sorted
    }

    /// The number of nested arrays and objects on the deepest path, counting this document (so an
    /// empty document is 1).
    ///
    /// - Complexity: O(*n*) in the number of values inside.
    package var nestingDepth: Int {
        Value.object(self).nestingDepth
    }
}

extension Document: ExpressibleByDictionaryLiteral {
    /// Creates a document from a literal. Each field name must appear once, as in `Dictionary`.
    public init(dictionaryLiteral elements: (String, Value)...) {
        self.init(uniqueFields: elements)
    }
}

extension Document: Sequence {
    /// A field: its name and value.
    public typealias Element = (key: String, value: Value)

    /// Iterates over the fields in no particular order (use ``sortedFields`` for name order).
    public func makeIterator() -> Dictionary<String, Value>.Iterator {
        fields.makeIterator()
    }

    /// The number of fields.
    public var underestimatedCount: Int { fields.count }
}

extension Document: Hashable, Comparable {
    /// Returns -1, 0 or 1 comparing the (name, value) pairs of `a` and `b`, each sorted by
    /// name bytes, pair by pair, a proper prefix first.
    ///
    /// - Complexity: O(*n* log *n*) in the number of fields, plus the value comparisons.
    public static func compare(_ a: Document, _ b: Document) -> Int {
        Value.compareContainers(.object(a), .object(b))
    }

    /// Whether `a` sorts before `b` (see ``compare(_:_:)``).
    ///
    /// - Complexity: See ``compare(_:_:)``.
    public static func < (a: Document, b: Document) -> Bool { compare(a, b) < 0 }

    /// Whether `a` and `b` have the same field names, by UTF-8 bytes, with equal values.
    ///
    /// - Complexity: See ``compare(_:_:)``.
    public static func == (a: Document, b: Document) -> Bool {
        a.count == b.count && compare(a, b) == 0
    }

    /// Hashes the fields independently of their order, consistently with ``==(_:_:)``.
    ///
    /// - Complexity: O(*n*) in the size of the document.
    public func hash(into hasher: inout Hasher) {
        hash(into: &hasher, level: 1)
    }

    /// Hashes the fields of a document at `level`, looking no deeper than ``Value/hashedLevels``.
    func hash(into hasher: inout Hasher, level: Int) {
        hasher.combine(fields.count)
        guard level <= Value.hashedLevels else { return }
        // Dictionary order is arbitrary, so combine per-field hashes with a commutative sum.
        var sum = 0
        for (name, value) in fields {
            var fieldHasher = Hasher()
            UTF8Order.hash(name, into: &fieldHasher)
            value.hash(into: &fieldHasher, level: level + 1)
            sum &+= fieldHasher.finalize()
        }
        hasher.combine(sum)
    }
}

extension Document: CustomStringConvertible {
    /// A JSON-like rendering with fields sorted by name.
    ///
    /// - Complexity: O(*n* log *n*) in the number of fields.
    public var description: String {
        var text = ""
        write(to: &text)
        return text
    }

    func write(to text: inout String) {
        Value.object(self).write(to: &text)
    }
}
