import DataStoreCore

/// A plan of window shape (``QueryPlan/windowScan(idField:)``): its scan, and where in the
/// query's conditions each of the scan's values comes from.
package struct WindowScan: Sendable {
    /// The plan's scan, with the values of the call it was made for.
    package let scan: QueryPlan.IndexScan
    /// For each value the scan fixes by `==`, in index order, the position of its condition.
    package let equalityPositions: [Int]
    /// The position of the range condition that bounds the scan's next field, if any.
    package let rangePosition: Int?
}

extension QueryPlan {
    /// The scan of a plan of window shape — at most ``PointValues/capacity`` conditions, one per
    /// field, none on the id field, each `==`, `<`, `<=`, `>` or `>=` with a scalar value, no sort
    /// or offset — answered from one window of a single-value index whose leading fields the `==`
    /// conditions fix and whose next field a range may bound; `nil` for any other query or plan.
    ///
    /// For such a shape the plan's structure does not depend on the values, as long as every
    /// range condition's range is neither empty (`> NaN`) nor one value (`>= +inf` among numbers):
    /// an `==` on a scalar is one value, a field's one condition is its range, no id is fixed, and
    /// each index scores by which of its fields are fixed or bounded. So the plan made for one
    /// call's values, with another call's values and ranges put in their places, is the plan the
    /// planner makes for those values, which lets a store compile it once.
    package func windowScan(idField: String) -> WindowScan? {
        guard query.sort.isEmpty, query.offset == 0, (1...PointValues.capacity).contains(query.conditions.count),
            case .indexScan(let scan) = access, scan.firstFieldValues == nil, !scan.backward,
            !scan.index.multiValue, !scan.equalities.isEmpty || scan.range != nil
        else { return nil }
        let conditions = query.conditions
        for (position, condition) in conditions.enumerated() {
            guard Self.windowOperators.contains(condition.op), condition.field != idField,
                Self.isScalar(condition.value), position == 0 || conditions[position - 1].field != condition.field
            else { return nil }
        }
        func position(of field: IndexDefinition.Field, equal: Bool) -> Int? {
            conditions.firstIndex { $0.field == field.name && ($0.op == .equal) == equal }
        }
        var equalityPositions: [Int] = []
        for field in scan.index.fields.prefix(scan.equalities.count) {
            guard let position = position(of: field, equal: true) else { return nil }
            equalityPositions.append(position)
        }
        var rangePosition: Int?
        if scan.range != nil {
            guard scan.equalities.count < scan.index.fields.count,
                let position = position(of: scan.index.fields[scan.equalities.count], equal: false)
            else { return nil }
            rangePosition = position
        }
        return WindowScan(scan: scan, equalityPositions: equalityPositions, rangePosition: rangePosition)
    }

    /// The scan of a plan of point shape — a window shape of `==` conditions alone and no limit —
    /// with, for each fixed field in index order, the position of its condition; `nil` for any
    /// other query or plan. Its plan does not depend on the values at all.
    package func pointScan(idField: String) -> (scan: IndexScan, positions: [Int])? {
        guard query.limit == nil, query.conditions.allSatisfy({ $0.op == .equal }),
            let window = windowScan(idField: idField), window.rangePosition == nil
        else { return nil }
        return (window.scan, window.equalityPositions)
    }

    private static let windowOperators: [DataStoreCore.Operator] = [
        .equal, .less, .lessOrEqual, .greater, .greaterOrEqual
    ]

    private static func isScalar(_ value: Value) -> Bool {
        switch value {
        case .array, .object: false
        case .null, .bool, .int, .double, .string, .bytes: true
        }
    }
}
