import DataStoreCore

extension QueryPlan {
    /// The scan of a plan of point shape — `==` conditions with scalar values on distinct fields,
    /// none the id field, no sort, limit or offset, answered from one window of a single-value
    /// index whose leading fields the conditions fix — with, for each fixed field in index order,
    /// the position of its condition; `nil` for any other query or plan.
    ///
    /// For such a shape the plan does not depend on the values: an `==` on a scalar is one value
    /// (never a contradiction), no id is fixed, and each index scores by which of its fields are
    /// fixed. So the plan made for one call's values, with another call's values put in their
    /// places, is the plan the planner makes for those values, which lets a store compile it once.
    package func pointScan(idField: String) -> (scan: IndexScan, positions: [Int])? {
        guard query.sort.isEmpty, query.limit == nil, query.offset == 0,
            (1...PointValues.capacity).contains(query.conditions.count),
            case .indexScan(let scan) = access, scan.firstFieldValues == nil, scan.range == nil, !scan.backward,
            !scan.equalities.isEmpty, !scan.index.multiValue
        else { return nil }
        let conditions = query.conditions
        for (position, condition) in conditions.enumerated() {
            guard condition.op == .equal, condition.field != idField, Self.isScalar(condition.value),
                position == 0 || conditions[position - 1].field != condition.field
            else { return nil }
        }
        var positions: [Int] = []
        for field in scan.index.fields.prefix(scan.equalities.count) {
            guard let position = conditions.firstIndex(where: { $0.field == field.name }) else { return nil }
            positions.append(position)
        }
        return (scan, positions)
    }

    private static func isScalar(_ value: Value) -> Bool {
        switch value {
        case .array, .object: false
        case .null, .bool, .int, .double, .string, .bytes: true
        }
    }
}
