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
        case (.array(let x), .array(let y)):
            for (p, q) in zip(x, y) {
                let order = compare(p, q)
                if order != 0 { return order }
            }
            return x.count == y.count ? 0 : (x.count < y.count ? -1 : 1)
        case (.object(let x), .object(let y)):
            return Document.compare(x, y)
        default:
            return a.typeRank < b.typeRank ? -1 : 1
        }
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
    /// case, and strings hash their UTF-8 bytes.
    ///
    /// - Complexity: O(*n*) in the size of the value.
    public func hash(into hasher: inout Hasher) {
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
            if let exact = Int64(exactly: value) {  // the same hash as the equal .int
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
        case .array(let value):
            hasher.combine(value)
        case .object(let value):
            hasher.combine(value)
        }
    }
}
