/// A query parsed once, some of whose condition values are parameters bound on each run: what a
/// prepared query holds, so that a run neither parses keys nor sorts them.
package struct QueryTemplate: Sendable {
    /// A parameter: its key and the position of its condition in `conditions`.
    private struct Slot: Sendable {
        let key: String
        let position: Int
        let kind: ParameterKind
    }

    /// The conditions in ``Query/conditions`` order, parameters holding a placeholder value.
    private let conditions: [Condition]
    /// The parameters, keys in UTF-8 byte order.
    private let slots: [Slot]
    /// Whether two conditions share a field and an operator, so that their order (or whether one
    /// repeats the other) depends on the values bound.
    private let orderDependsOnValues: Bool
    private let sort: [SortKey]
    private let limit: Int?
    private let offset: Int

    /// Parses `params` and `options` as ``Query/init(params:options:)`` does.
    ///
    /// - Throws: ``DataStoreError`` `.invalidQuery` naming the key (as the seed's dictionary, and
    ///   for a parameter whose kind its operator cannot take), `.invalidOption` naming the option.
    /// - Complexity: O(*n* log *n*) in the number of parameters, plus the size of the options.
    package init(params: [String: QueryParameter]?, options: [String: Value]?) throws(DataStoreError) {
        var entries: [(condition: Condition, slot: (key: String, kind: ParameterKind)?)] = []
        for (key, term) in (params ?? [:]).sorted(by: { UTF8Order.compare($0.key, $1.key) < 0 }) {
            switch term {
            case .value(let value): entries.append((try Condition(key: key, value: value), nil))
            case .parameter(let kind): entries.append((try Condition(key: key, parameter: kind), (key, kind)))
            }
        }
        let parsed = try QueryOptions(options ?? [:])
        entries.sort { Self.fieldThenOperator($0.condition, $1.condition) }
        let ordered = entries.map(\.condition)
        self.conditions = ordered
        self.slots = entries.indices.compactMap { position in
            entries[position].slot.map { Slot(key: $0.key, position: position, kind: $0.kind) }
        }.sorted { UTF8Order.compare($0.key, $1.key) < 0 }
        self.orderDependsOnValues = zip(ordered, ordered.dropFirst()).contains {
            $0.field == $1.field && $0.op == $1.op
        }
        self.sort = parsed.sort
        self.limit = parsed.limit
        self.offset = parsed.offset
    }

    /// The parameters' keys, in UTF-8 byte order.
    package var parameterKeys: [String] { slots.map(\.key) }

    /// The conditions as prepared, sorted by field and operator (the order of a bound query's
    /// conditions when no two share both): a parameter's condition holds a placeholder of its kind
    /// until a run binds it.
    package var preparedConditions: [Condition] { conditions }

    /// Each parameter's key and kind, and the position of its condition in ``preparedConditions``,
    /// keys in UTF-8 byte order.
    package var parameterPositions: [(key: String, kind: ParameterKind, position: Int)] {
        slots.map { ($0.key, $0.kind, $0.position) }
    }

    /// The query with `values` bound: the query ``Query/init(params:options:)`` parses from the
    /// same dictionary with these values written in.
    ///
    /// - Throws: ``DataStoreError`` `.invalidQuery` naming a key that is not a parameter, a
    ///   parameter without a value, or one whose value is not of its kind (a key that is not a
    ///   parameter first, then the parameters in UTF-8 byte order of their keys).
    /// - Complexity: O(*p*) in the number of parameters.
    package func bind(_ values: [String: Value]) throws(DataStoreError) -> Query {
        var bound = conditions
        for slot in slots {
            guard let value = values[slot.key] else {
                try rejectUnknownKeys(values)
                throw DataStoreError(
                    .invalidQuery, "prepared query parameter \(Query.quoted(slot.key)) has no value bound")
            }
            guard slot.kind.admits(value) else {
                try rejectUnknownKeys(values)
                throw DataStoreError(
                    .invalidQuery,
                    "prepared query parameter \(Query.quoted(slot.key)) needs a \(slot.kind), not \(value.typeName) "
                        + value.description(limit: Value.planTextLimit))
            }
            bound[slot.position].value = value
        }
        // Every parameter has its value: any further key is not one.
        if values.count > slots.count { try rejectUnknownKeys(values) }
        if orderDependsOnValues { return Query(conditions: bound, sort: sort, limit: limit, offset: offset) }
        // Sorted by field and operator, with no two alike: the order normalizing gives, whatever the values.
        var query = Query(sort: sort, limit: limit, offset: offset)
        query.conditions = bound
        return query
    }

    /// Throws for the first key of `values`, in UTF-8 byte order, that is not a parameter.
    private func rejectUnknownKeys(_ values: [String: Value]) throws(DataStoreError) {
        let unknown = values.keys.filter { key in !slots.contains { $0.key == key } }
        guard let first = unknown.min(by: { UTF8Order.compare($0, $1) < 0 }) else { return }
        let known =
            slots.isEmpty
            ? "it has none"
            : "its parameters are "
                + slots.map { Query.quoted($0.key) }.joined(
                    separator: ", ")
        throw DataStoreError(
            .invalidQuery, "\(Query.quoted(first)) is not a parameter of this prepared query; \(known)")
    }

    /// Whether `a` comes before `b` by field (UTF-8 bytes), then operator: ``Condition/precedes``
    /// without the values.
    private static func fieldThenOperator(_ a: Condition, _ b: Condition) -> Bool {
        let field = UTF8Order.compare(a.field, b.field)
        if field != 0 { return field < 0 }
        if a.op != b.op { return a.op.rank < b.op.rank }
        return Condition.precedes(a, b)
    }
}

extension Condition {
    /// Parses a prepared query's parameter key, whose value is bound later.
    ///
    /// - Throws: ``DataStoreError`` `.invalidQuery` quoting `key`, as ``init(key:value:)`` does, or
    ///   when its operator cannot take a value of `kind`.
    init(key: String, parameter kind: ParameterKind) throws(DataStoreError) {
        let (field, op) = try Condition.parse(key: key)
        try FieldPath.check(field, context: "query key \(Query.quoted(key))")
        guard kind.fits(op) else {
            let needed = ParameterKind.allCases.filter { $0.fits(op) }.map(\.rawValue).joined(separator: ", ")
            throw DataStoreError(
                .invalidQuery,
                "query key \(Query.quoted(key)) cannot take a \(kind) parameter; its operator takes \(needed)")
        }
        self.init(field: field, op: op, value: kind.placeholder)
    }
}
