/// The total order and the equality of `Value` (see docs/encoding.md, "The value model").
extension Value: Comparable, Hashable {
    /// The rank of this value's type class; numbers share one rank.
    @inline(__always)
    var typeRank: Int {
        switch self {
        case .null: 0
        case .bool: 1
        case .int, .double: 2
        case .string: 3
        case .bytes: 4
        case .array: 5
        case .object: 6
        }
    }

    /// Returns -1, 0 or 1 as `a` sorts before, equal to or after `b` in the total order.
    ///
    /// - Complexity: O(*n*) in the size of the smaller value; O(*n* log *n*) for objects,
    ///   whose fields are sorted by name first.
    public static func compare(_ a: Value, _ b: Value) -> Int {
        switch (a, b) {
        case (.null, .null):
            return 0
        case (.bool(let x), .bool(let y)):
            return x == y ? 0 : (x ? 1 : -1)
        case (.int(let x), .int(let y)):
            return x == y ? 0 : (x < y ? -1 : 1)
        case (.double(let x), .double(let y)):
            return NumberOrder.compare(x, y)
        case (.int(let x), .double(let y)):
            return NumberOrder.compare(x, y)
        case (.double(let x), .int(let y)):
            return -NumberOrder.compare(y, x)
        case (.string(let x), .string(let y)):
            return UTF8Order.compare(x, y)
        case (.bytes(let x), .bytes(let y)):
            return x.withUnsafeBytes { p in y.withUnsafeBytes { q in UTF8Order.compare(p, q) } }
        case (.array, .array), (.object, .object):
            return compareContainers(a, b)
        default:
            return a.typeRank < b.typeRank ? -1 : 1
        }
    }

    /// Compares two arrays or two objects, walking them with an explicit stack rather than by
    /// recursion, so values of any depth compare without overflowing the stack.
    static func compareContainers(_ a: Value, _ b: Value) -> Int {
        var open: [OpenPair] = []
        var next: (Value, Value)? = (a, b)
        while true {
            if let (p, q) = next {
                next = nil
                switch (p, q) {
                case (.array(let x), .array(let y)):
                    open.append(.arrays(x, y, next: 0))
                case (.object(let x), .object(let y)):
                    open.append(.objects(x.sortedFields, y.sortedFields, next: 0))
                default:
                    let order = compare(p, q) // not two containers of one kind: no recursion
                    if order != 0 { return order }
                }
            }
            guard let pair = open.popLast() else { return 0 }
            switch pair {
            case .arrays(let x, let y, let index):
                guard index < x.count && index < y.count else {
                    if x.count != y.count { return x.count < y.count ? -1 : 1 }
                    continue
                }
                open.append(.arrays(x, y, next: index + 1))
                next = (x[index], y[index])
            case .objects(let x, let y, let index):
                guard index < x.count && index < y.count else {
                    if x.count != y.count { return x.count < y.count ? -1 : 1 }
                    continue
                }
                let name = UTF8Order.compare(x[index].name, y[index].name)
                if name != 0 { return name }
                open.append(.objects(x, y, next: index + 1))
                next = (x[index].value, y[index].value)
            }
        }
    }

    /// Two containers being compared, with the index of the next elements or fields to compare.
    private enum OpenPair {
        case arrays([Value], [Value], next: Int)
        case objects([(name: String, value: Value)], [(name: String, value: Value)], next: Int)
    }

    /// Whether `a` sorts before `b` in the total order.
    ///
    /// - Complexity: See ``compare(_:_:)``.
    public static func < (a: Value, b: Value) -> Bool { compare(a, b) < 0 }

    /// Whether `a` and `b` are equal in the total order: numbers by exact value
    /// (`.int(1) == .double(1.0)`, `-0.0 == 0.0`, NaN == NaN), strings by UTF-8 bytes.
    ///
    /// - Complexity: See ``compare(_:_:)``.
    public static func == (a: Value, b: Value) -> Bool { compare(a, b) == 0 }

    /// Hashes the value consistently with ``==(_:_:)``: equal numbers hash alike whatever their
    /// case, and strings hash their UTF-8 bytes. Only the first `hashedLevels` levels of
    /// arrays and objects are hashed (deeper ones by their kind and size), so hashing recurses
    /// no deeper than that; equal values still hash alike.
    ///
    /// - Complexity: O(*n*) in the size of the value.
    public func hash(into hasher: inout Hasher) {
        hash(into: &hasher, level: 1)
    }

    /// The levels of arrays and objects ``hash(into:)`` looks into: as deep as a record may nest.
    static let hashedLevels = RecordCodec.maxDepth

    /// `level` is the level this value would have as a container (the top value's is 1).
    func hash(into hasher: inout Hasher, level: Int) {
        hasher.combine(typeRank)
        switch self {
        case .null:
            break
        case .bool(let value):
            hasher.combine(value)
        case .int(let value):
            hasher.combine(0 as UInt8)
            hasher.combine(value)
        case .double(let value):
            if let exact = Int64(exactly: value) { // the same hash as the equal .int
                hasher.combine(0 as UInt8)
                hasher.combine(exact)
            } else {
                hasher.combine(1 as UInt8)
                hasher.combine(value.isNaN ? Double.nan.bitPattern : value.bitPattern)
            }
        case .string(let value):
            UTF8Order.hash(value, into: &hasher)
        case .bytes(let value):
            hasher.combine(value)
        case .array(let elements):
            hasher.combine(elements.count)
            guard level <= Value.hashedLevels else { return }
            for element in elements { element.hash(into: &hasher, level: level + 1) }
        case .object(let document):
            document.hash(into: &hasher, level: level)
        }
    }
}
