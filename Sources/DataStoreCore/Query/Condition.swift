/// A comparison in a query key: the `OP` of `"field OP"` (see docs/queries.md).
public enum Operator: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// The field value equals the condition value (`"field"`, `"field ="` or `"field =="`).
    case equal = "=="
    /// The field is present and its value does not equal the condition value.
    case notEqual = "!="
    /// The field value is below the condition value, within one type class.
    case less = "<"
    /// The field value is below or equal to the condition value, within one type class.
    case lessOrEqual = "<="
    /// The field value is above the condition value, within one type class.
    case greater = ">"
    /// The field value is above or equal to the condition value, within one type class.
    case greaterOrEqual = ">="
    /// The field value equals one element of the condition's array.
    case `in` = "in"
    /// The field is present and its value equals no element of the condition's array.
    case notIn = "!in"
    /// The field value is a string that starts with the condition's string, by UTF-8 bytes
    /// (an index serves it as the range of strings with that prefix).
    case prefix = "^="
    /// With `true`, the field is present, whatever its value (`null` included); with `false`,
    /// it is absent: the one condition a document without the field can meet.
    case exists = "exists"

    /// Whether this is one of `<`, `<=`, `>`, `>=`.
    public var isRange: Bool {
        switch self {
        case .less, .lessOrEqual, .greater, .greaterOrEqual: true
        case .equal, .notEqual, .in, .notIn, .prefix, .exists: false
        }
    }

    /// Whether the operator is a word (`in`, `exists`): such a word is also a valid field name.
    var isWord: Bool { self == .in || self == .exists }

    /// The operator as written in a key, the canonical spelling (`==` rather than `=`).
    public var description: String { rawValue }

    /// The operator spelled `token` in a query key: one of the raw values, or `=` for ``equal``.
    public init?(token: some StringProtocol) {
        // The spellings are at most 6 bytes: packed with their length into one integer (the
        // constants below: the length in bits 48 and up, the bytes from bit 40 down), a token is
        // matched without making a String or switching over strings.
        let utf8 = token.utf8
        guard utf8.count <= 6 else { return nil }
        var packed = UInt64(utf8.count) << 48
        for (position, byte) in utf8.enumerated() { packed |= UInt64(byte) << (8 * UInt64(5 - position)) }
        switch packed {
        case 0x013D0000000000, 0x023D3D00000000: self = .equal
        case 0x02213D00000000: self = .notEqual
        case 0x013C0000000000: self = .less
        case 0x023C3D00000000: self = .lessOrEqual
        case 0x013E0000000000: self = .greater
        case 0x023E3D00000000: self = .greaterOrEqual
        case 0x02696E00000000: self = .in
        case 0x0321696E000000: self = .notIn
        case 0x025E3D00000000: self = .prefix
        case 0x06657869737473: self = .exists
        default: return nil
        }
    }

    /// The position of this operator in ``allCases``: the order of conditions on one field.
    var rank: Int {
        switch self {
        case .equal: 0
        case .notEqual: 1
        case .less: 2
        case .lessOrEqual: 3
        case .greater: 4
        case .greaterOrEqual: 5
        case .in: 6
        case .notIn: 7
        case .prefix: 8
        case .exists: 9
        }
    }
}

/// One condition of a query: a top-level field, an operator and a value, such as
/// `created_ts >= 1437108600`.
///
/// A condition never matches a document that lacks the field (not even `!=`). Whole rules are in
/// docs/queries.md, "Matching".
public struct Condition: Sendable, Hashable, CustomStringConvertible {
    /// The top-level field name, matched literally (a dot is part of the name, not a path).
    public var field: String
    /// The comparison.
    public var op: Operator
    /// The value the field is compared with; an array of candidates for ``Operator/in``.
    public var value: Value

    /// Creates a condition. No validation happens here: a range operator with a `null`, array or
    /// object value, or `in` with a non-array value, simply never matches.
    public init(field: String, op: Operator, value: Value) {
        self.field = field
        self.op = op
        self.value = value
    }

    /// The condition as it reads in explain text: `created_ts >= 1437108600`,
    /// `from_user_key == "1234567890"`, `tag in ["a", "b"]`; a long value is cut (see
    /// `Value/description(limit:)`).
    public var description: String {
        "\(field) \(op.rawValue) \(value.description(limit: Value.planTextLimit))"
    }
}

extension Condition {
    /// The deterministic order of a query's conditions: field name by UTF-8 bytes, then operator
    /// (in ``Operator/allCases`` order), then value by the total order, then the value's text
    /// (so `1` and `1.0` have a stable order too).
    static func precedes(_ a: Condition, _ b: Condition) -> Bool {
        let field = UTF8Order.compare(a.field, b.field)
        if field != 0 { return field < 0 }
        if a.op != b.op { return a.op.rank < b.op.rank }
        let value = Value.compare(a.value, b.value)
        if value != 0 { return value < 0 }
        return UTF8Order.compare(a.value.description, b.value.description) < 0
    }

    /// Whether `a` and `b` are written identically (same field, operator, value case and text).
    static func isIdentical(_ a: Condition, _ b: Condition) -> Bool {
        a.field == b.field && a.op == b.op && a.value.typeName == b.value.typeName
            && a.value.description == b.value.description
    }

    /// Sorts `conditions` into the deterministic order and drops identical repeats.
    ///
    /// - Complexity: O(*n* log *n*) in the number of conditions.
    static func normalized(_ conditions: [Condition]) -> [Condition] {
        // Parsed parameters usually arrive in order already (keys sorted by their bytes), each
        // strictly after the one before and so not repeating it: kept as they are, not copied.
        if zip(conditions, conditions.dropFirst()).allSatisfy({ precedes($0, $1) }) { return conditions }
        var result: [Condition] = []
        result.reserveCapacity(conditions.count)
        let inOrder = zip(conditions, conditions.dropFirst()).allSatisfy { !precedes($1, $0) }
        for condition in inOrder ? conditions : conditions.sorted(by: precedes) {
            if let last = result.last, isIdentical(last, condition) { continue }
            result.append(condition)
        }
        return result
    }
}
