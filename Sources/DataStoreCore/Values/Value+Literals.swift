/// Literal syntax, so queries and documents read naturally:
/// `let q: [String: Value] = ["from_user_key": "123", "created_ts >=": 1437108600]`.
extension Value: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral,
    ExpressibleByDictionaryLiteral
{
    /// Creates ``null``.
    public init(nilLiteral: ()) { self = .null }

    /// Creates ``bool(_:)``.
    public init(booleanLiteral value: Bool) { self = .bool(value) }

    /// Creates ``int(_:)``.
    public init(integerLiteral value: Int64) { self = .int(value) }

    /// Creates ``double(_:)``.
    public init(floatLiteral value: Double) { self = .double(value) }

    /// Creates ``string(_:)``.
    public init(stringLiteral value: String) { self = .string(value) }

    /// Creates ``array(_:)``.
    public init(arrayLiteral elements: Value...) { self = .array(elements) }

    /// Creates ``object(_:)``. Each field name must appear once.
    public init(dictionaryLiteral elements: (String, Value)...) {
        self = .object(Document(uniqueFields: elements))
    }
}
