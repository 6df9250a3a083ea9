/// A parsed query: conditions that must all hold, a sort order, and a window (`offset`, `limit`).
///
/// Built from the seed's parameter and option dictionaries,
///
/// ```swift
/// let query = try Query(params: ["from_user_key": "1234567890", "created_ts >=": 1437108600],
///                       options: ["sort": ["-created_ts"], "limit": 20])
/// ```
///
/// or directly from ``Condition``s. `matches(_:)` and `evaluate(_:idField:)` define what every
/// model must answer; the LMDB store's planner answers the same query from its indexes.
/// The language is specified in docs/queries.md.
public struct Query: Sendable, Hashable, CustomStringConvertible {
    /// The conditions, all of which must hold, sorted by field (UTF-8 bytes), then operator
    /// (`Operator/allCases` order), then value, so that explain text is stable.
    ///
    /// The initializers sort; assigning this property directly keeps the order given.
    public var conditions: [Condition]
    /// The sort keys, most significant first; empty leaves the order unspecified (by id in
    /// `evaluate(_:idField:)`).
    public var sort: [SortKey]
    /// The most documents to return after ``offset``; `nil` for no limit. A negative limit
    /// is treated as 0.
    public var limit: Int?
    /// How many sorted matches to skip before the first returned one. A negative offset is
    /// treated as 0.
    public var offset: Int

    /// Creates a query from parts; `conditions` are sorted into their deterministic order and
    /// identical repeats dropped.
    ///
    /// - Complexity: O(*n* log *n*) in the number of conditions.
    public init(conditions: [Condition] = [], sort: [SortKey] = [], limit: Int? = nil, offset: Int = 0) {
        self.conditions = Condition.normalized(conditions)
        self.sort = sort
        self.limit = limit
        self.offset = offset
    }

    /// Whether the query is the empty query: no conditions, no sort, no limit, no offset
    /// (the same answer as `all()`).
    public var isEmpty: Bool {
        conditions.isEmpty && sort.isEmpty && limit == nil && offset == 0
    }

    /// The conditions on `field`, in ``conditions`` order.
    ///
    /// - Complexity: O(*n*) in the number of conditions.
    public func conditions(on field: String) -> [Condition] {
        conditions.filter { $0.field == field }
    }

    /// The distinct fields that conditions constrain, in ``conditions`` order.
    ///
    /// - Complexity: O(*n*) in the number of conditions.
    public var conditionFields: [String] {
        var fields: [String] = []
        for condition in conditions where fields.last != condition.field {
            fields.append(condition.field)
        }
        return fields
    }

    /// The query as explain text: the conditions joined by `and` (or `all` when there are none),
    /// then `sort …`, `limit n`, `offset n` when set. For example
    /// `created_ts >= 1437108600 and from_user_key == "12" sort created_ts desc limit 20`.
    public var description: String {
        var text = conditions.isEmpty ? "all" : conditions.map(\.description).joined(separator: " and ")
        if !sort.isEmpty {
            text += " sort " + sort.map(\.description).joined(separator: ", ")
        }
        if let limit {
            text += " limit \(limit)"
        }
        if offset != 0 {
            text += " offset \(offset)"
        }
        return text
    }
}
