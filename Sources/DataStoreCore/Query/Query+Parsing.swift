/// Parsing the seed's parameter dictionary: `["from_user_key": "12", "created_ts >=": 1437108600]`.
extension Query {
    /// Parses the seed's query parameters and options (see docs/queries.md).
    ///
    /// - Parameters:
    ///   - params: Keys `"field"` or `"field OP"` mapped to values; all conditions are ANDed.
    ///     `nil` or empty matches every document.
    ///   - options: `limit`, `offset` and `sort`; `nil` or empty for none.
    /// - Throws: ``DataStoreError`` `.invalidQuery` naming the parameter key (unknown operator,
    ///   missing field, too many words, an `in` value that is not an array, a range operator on a
    ///   value that has no order within its type), or `.invalidOption` naming the option. Parameters
    ///   are checked before options, and keys in UTF-8 byte order, so the error reported for a
    ///   given input is always the same.
    /// - Complexity: O(*n* log *n*) in the number of parameters, plus the size of the options.
    public init(params: [String: Value]?, options: [String: Value]?) throws(DataStoreError) {
        var conditions: [Condition] = []
        conditions.reserveCapacity(params?.count ?? 0)
        // Keys in UTF-8 byte order, so that of several bad keys the same one is always reported.
        for (key, value) in (params ?? [:]).sorted(by: { UTF8Order.compare($0.key, $1.key) < 0 }) {
            conditions.append(try Condition(key: key, value: value))
        }
        let parsed = try QueryOptions(options ?? [:])
        self.init(conditions: conditions, sort: parsed.sort, limit: parsed.limit, offset: parsed.offset)
    }
}

extension Condition {
    /// Parses one parameter: the key `"field"` or `"field OP"` and its value.
    ///
    /// - Throws: ``DataStoreError`` `.invalidQuery` quoting `key`.
    init(key: String, value: Value) throws(DataStoreError) {
        let (field, op) = try Condition.parse(key: key)
        try FieldPath.check(field, context: "query key \(Query.quoted(key))")
        if field.utf8.first == UInt8(ascii: "$"), Self.mongoOperators[field] != nil || field == "$or" || field == "$and"
        {
            throw DataStoreError(
                .invalidQuery,
                "query key \(Query.quoted(key)) is a MongoDB operator, which this query language does not have: "
                    + "every key is a condition (\"field\" or \"field OP\"), and all of them must hold")
        }
        switch op {
        case .in, .notIn:
            guard case .array = value else {
                throw DataStoreError(
                    .invalidQuery,
                    "query key \(Query.quoted(key)) needs an array of values, not \(value.typeName) \(value.description(limit: Value.planTextLimit))"
                )
            }
        case .prefix:
            guard case .string = value else {
                throw DataStoreError(
                    .invalidQuery,
                    "query key \(Query.quoted(key)) needs a string prefix, not \(value.typeName) \(value.description(limit: Value.planTextLimit))"
                )
            }
        case .exists:
            guard case .bool = value else {
                throw DataStoreError(
                    .invalidQuery,
                    "query key \(Query.quoted(key)) needs true (the field is present) or false (absent), "
                        + "not \(value.typeName) \(value.description(limit: Value.planTextLimit))")
            }
        case .less, .lessOrEqual, .greater, .greaterOrEqual:
            guard Condition.isOrderable(value) else {
                throw DataStoreError(
                    .invalidQuery,
                    "query key \(Query.quoted(key)) compares with \(value.typeName) \(value); a range operator needs "
                        + "a number, string, bytes or bool")
            }
        case .equal, .notEqual:
            if case .object(let document) = value,
                let mongo = document.fields.keys.sorted().first(where: { $0.hasPrefix("$") })
            {
                let written = Self.mongoOperators[mongo].map { "\"\(field) \($0)\"" } ?? "\"field OP\""
                throw DataStoreError(
                    .invalidQuery,
                    "query key \(Query.quoted(key)) compares with an object whose key \(Query.quoted(mongo)) reads like a "
                        + "MongoDB operator; write the operator in the key: \(written): value")
            }
        }
        self.init(field: field, op: op, value: value)
    }

    /// MongoDB's comparison operators, and how this query language writes each in a key.
    static let mongoOperators: [String: String] = [
        "$eq": "==", "$ne": "!=", "$gt": ">", "$gte": ">=", "$lt": "<", "$lte": "<=", "$in": "in", "$nin": "!in",
        "$exists": "exists", "$regex": "^= (a prefix)", "$not": "!=", "$nor": "(no such form)"
    ]

    /// Splits a parameter key into its field and operator.
    ///
    /// - Throws: ``DataStoreError`` `.invalidQuery` quoting `key`.
    package static func parse(key: String) throws(DataStoreError) -> (field: String, op: Operator) {
        if let parsed = parseCommonShape(key) { return parsed }
        return try parseGeneral(key)
    }

    /// The common shapes, "field" and "field OP" in printable ASCII, read without Character and
    /// Unicode-property work; `nil` sends anything else to the general path (and its errors).
    private static func parseCommonShape(_ key: String) -> (field: String, op: Operator)? {
        let utf8 = key.utf8
        switch utf8.withContiguousStorageIfAvailable(QueryKeyShape.init) ?? QueryKeyShape(Array(utf8)) {
        case .field:
            if Operator(token: key)?.isWord ?? true { return (key, .equal) }
        case .fieldAndOperator(let space):
            let spaceIndex = utf8.index(utf8.startIndex, offsetBy: space)
            let field = Substring(utf8[..<spaceIndex])
            let token = Substring(utf8[utf8.index(after: spaceIndex)...])
            if let op = Operator(token: token), Operator(token: field)?.isWord ?? true {
                return (String(field), op)
            }
        case .other:
            break
        }
        return nil
    }

    /// Any other key: split at whitespace, with an error for each way it can be wrong.
    private static func parseGeneral(_ key: String) throws(DataStoreError) -> (field: String, op: Operator) {
        let words = key.split(whereSeparator: \.isWhitespace)
        guard let first = words.first, let firstCharacter = key.first, let lastCharacter = key.last else {
            throw DataStoreError(.invalidQuery, "query key \(Query.quoted(key)) has no field name")
        }
        if firstCharacter.isWhitespace {
            if words.count == 1, Operator(token: first) != nil {
                throw DataStoreError(
                    .invalidQuery,
                    "query key \(Query.quoted(key)) has no field name before the operator \(Query.quoted(first))")
            }
            throw DataStoreError(.invalidQuery, "query key \(Query.quoted(key)) starts with whitespace")
        }
        if lastCharacter.isWhitespace {
            throw DataStoreError(
                .invalidQuery,
                "query key \(Query.quoted(key)) ends with whitespace; write \"field\" or \"field OP\"")
        }
        if words.count > 2 {
            throw DataStoreError(
                .invalidQuery,
                "query key \(Query.quoted(key)) has \(words.count) words; write \"field\" or \"field OP\" "
                    + "(field names cannot contain whitespace)")
        }
        if let op = Operator(token: first), !op.isWord {
            throw DataStoreError(
                .invalidQuery,
                "query key \(Query.quoted(key)) has no field name before the operator \(Query.quoted(first))")
        }
        guard words.count == 2 else {
            return (String(first), .equal)
        }
        guard let op = Operator(token: words[1]) else {
            throw DataStoreError(
                .invalidQuery,
                "query key \(Query.quoted(key)) has an unknown operator \(Query.quoted(words[1])); "
                    + "the operators are =, ==, !=, <, <=, >, >=, in, !in, ^= and exists")
        }
        return (String(first), op)
    }

    /// Whether range operators can compare with `value`: a bool, number, string or bytes.
    static func isOrderable(_ value: Value) -> Bool {
        switch value {
        case .bool, .int, .double, .string, .bytes: true
        case .null, .array, .object: false
        }
    }
}

extension Query {
    /// `text` in double quotes, escaped as ``Value`` prints strings, for error messages.
    static func quoted(_ text: some StringProtocol) -> String {
        Value.string(String(text)).description
    }
}
