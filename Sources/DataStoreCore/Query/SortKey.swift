/// One key of a query's sort order: a top-level field and a direction.
public struct SortKey: Sendable, Hashable, CustomStringConvertible {
    /// The top-level field name, matched literally.
    public var field: String
    /// Whether smaller values come first.
    public var ascending: Bool

    /// Creates a sort key.
    public init(field: String, ascending: Bool = true) {
        self.field = field
        self.ascending = ascending
    }

    /// `created_ts asc` or `created_ts desc`, for explain text.
    public var description: String {
        "\(field) \(ascending ? "asc" : "desc")"
    }
}

extension Query {
    /// Returns -1, 0 or 1 comparing two field values in the sort order: by ``Value``'s total order,
    /// with a missing field (`nil`) before every value, even `null`.
    ///
    /// - Complexity: See ``Value/compare(_:_:)``.
    package static func compareSortValues(_ a: Value?, _ b: Value?) -> Int {
        switch (a, b) {
        case (nil, nil): 0
        case (nil, _?): -1
        case (_?, nil): 1
        case (let x?, let y?): Value.compare(x, y)
        }
    }

    /// Whether `a` sorts strictly before `b` in this query's order: the sort keys in turn (a
    /// missing field first ascending, last descending), then `idField` ascending whatever the
    /// directions. A strict weak order, suitable for `sort(by:)`; with no sort keys it orders by
    /// id alone.
    ///
    /// - Parameters:
    ///   - a: A document.
    ///   - b: Another document.
    ///   - idField: The name of the id field that breaks ties.
    /// - Complexity: O(*k*) value comparisons for *k* sort keys (see ``Value/compare(_:_:)``).
    package func areInOrder(_ a: Document, _ b: Document, idField: String) -> Bool {
        for key in sort {
            let order = Query.compareSortValues(a.value(atPath: key.field), b.value(atPath: key.field))
            if order != 0 { return key.ascending ? order < 0 : order > 0 }
        }
        return Query.compareSortValues(a[idField], b[idField]) < 0
    }
}
