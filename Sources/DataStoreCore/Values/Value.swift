/// One value stored in a document: the data model shared by records, keys and queries.
///
/// `Value` has one total order, used by indexes, sorting and query ranges alike
/// (see docs/encoding.md and `Value+Order.swift`):
///
/// ```
/// null < false < true < numbers < strings < bytes < arrays < objects
/// ```
///
/// `int` and `double` are one class of *numbers* compared by exact value: `.int(1) == .double(1)`.
/// Strings compare and are equal by their UTF-8 bytes.
public enum Value: Sendable {
    /// The absence of a value (JSON `null`, `NSNull`, a Swift `nil`).
    case null
    /// A Boolean.
    case bool(Bool)
    /// A signed 64-bit integer.
    case int(Int64)
    /// An IEEE-754 binary64 number.
    case double(Double)
    /// A Unicode string, compared by its UTF-8 bytes.
    case string(String)
    /// Raw bytes.
    case bytes([UInt8])
    /// An ordered list of values.
    case array([Value])
    /// A nested document.
    case object(Document)
}

extension Value {
    /// The name of this value's case, for error messages: `"null"`, `"bool"`, `"int"`,
    /// `"double"`, `"string"`, `"bytes"`, `"array"` or `"object"`.
    public var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "bool"
        case .int: "int"
        case .double: "double"
        case .string: "string"
        case .bytes: "bytes"
        case .array: "array"
        case .object: "object"
        }
    }

    /// Whether this value is ``null``.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// Whether this value is a number (`int` or `double`).
    public var isNumber: Bool {
        switch self {
        case .int, .double: true
        default: false
        }
    }

    /// The Boolean, if this value is ``bool(_:)``.
    public var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// The number as an `Int64`, if this is an ``int(_:)`` or a ``double(_:)`` with an exact
    /// integral value in `Int64`'s range.
    public var intValue: Int64? {
        switch self {
        case .int(let value): value
        case .double(let value): Int64(exactly: value)
        default: nil
        }
    }

    /// The number as a `Double`, if this is a number. An `Int64` beyond ±2^53 is rounded to the
    /// nearest `Double`.
    public var doubleValue: Double? {
        switch self {
        case .int(let value): Double(value)
        case .double(let value): value
        default: nil
        }
    }

    /// The string, if this value is ``string(_:)``.
    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The bytes, if this value is ``bytes(_:)``.
    public var bytesValue: [UInt8]? {
        if case .bytes(let value) = self { return value }
        return nil
    }

    /// The elements, if this value is ``array(_:)``.
    public var arrayValue: [Value]? {
        if case .array(let value) = self { return value }
        return nil
    }

    /// The document, if this value is ``object(_:)``.
    public var objectValue: Document? {
        if case .object(let value) = self { return value }
        return nil
    }

    /// The number of nested arrays and objects on the deepest path through this value,
    /// counting this value itself if it is one (so `.int(1)` is 0 and `[[1]]` is 2).
    ///
    /// It walks the value with an explicit stack, so it answers for a value of any depth.
    ///
    /// - Complexity: O(*n*) in the number of values nested inside.
    package var nestingDepth: Int {
        var deepest = 0
        var pending: [(value: Value, depth: Int)] = isContainer ? [(self, 1)] : []
        while let (value, depth) = pending.popLast() {
            deepest = Swift.max(deepest, depth)
            switch value {
            case .array(let elements):
                for element in elements where element.isContainer { pending.append((element, depth + 1)) }
            case .object(let document):
                for field in document.fields.values where field.isContainer { pending.append((field, depth + 1)) }
            default:
                break
            }
        }
        return deepest
    }
}
