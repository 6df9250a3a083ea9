/// The value side of one key of a prepared query (`StoreCollection/prepareQuery(params:options:)`):
/// a value fixed when the query is prepared, or a parameter bound on each run.
///
/// ```swift
/// let conversation = try messages.prepareQuery(params: [
///     "from_user_key": .parameter(.string), "to_user_key": .parameter(.string), "type": .value("video"),
/// ])
/// let found = try await conversation.run(["from_user_key": "12", "to_user_key": "34"])
/// ```
public enum QueryParameter: Sendable, Hashable {
    /// A value fixed when the query is prepared, as in the seed's parameter dictionary.
    case value(Value)
    /// A value bound on each run, which must be of this kind.
    case parameter(ParameterKind)
}

/// The kinds of value a prepared query's parameter accepts: the distinctions its plan rests on.
public enum ParameterKind: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// `true` or `false`.
    case bool
    /// An `int` or a `double`.
    case number
    /// A string.
    case string
    /// Bytes.
    case bytes
    /// An array (the values of an `in` or `!in`).
    case array

    /// Whether `value` is of this kind.
    public func admits(_ value: Value) -> Bool {
        switch (self, value) {
        case (.bool, .bool), (.number, .int), (.number, .double), (.string, .string), (.bytes, .bytes),
            (.array, .array):
            true
        default:
            false
        }
    }

    /// The kind's name, as in error messages: `string`, `number`.
    public var description: String { rawValue }

    /// Whether a parameter of this kind can follow `op`: the kinds the seed's dictionary accepts
    /// for that operator.
    func fits(_ op: Operator) -> Bool {
        switch op {
        case .in, .notIn: self == .array
        case .prefix: self == .string
        case .exists: self == .bool
        case .less, .lessOrEqual, .greater, .greaterOrEqual: self != .array
        case .equal, .notEqual: true
        }
    }

    /// A value of this kind, held by a condition until a run binds the parameter.
    var placeholder: Value {
        switch self {
        case .bool: .bool(false)
        case .number: .int(0)
        case .string: .string("")
        case .bytes: .bytes([])
        case .array: .array([])
        }
    }
}
