import DataStoreCore
import DataStoreEngine

/// How a prepared query's run fills a ``PointValues``: the fixed values where they stand, each
/// parameter's value at its condition's position, checked against its kind.
struct PreparedBinding: Sendable {
    /// The prepared conditions' values (parameters holding placeholders); `nil` when there are
    /// more than ``PointValues/capacity``.
    private let fixed: [Value]?
    /// The parameters' keys, and for each its kind and the position of its condition.
    private let keys: [String]
    private let kinds: [ParameterKind]
    private let positions: [Int]
    /// How many conditions the template prepared.
    let conditionCount: Int

    init(_ template: QueryTemplate) {
        let conditions = template.preparedConditions
        conditionCount = conditions.count
        fixed = conditions.count <= PointValues.capacity ? conditions.map(\.value) : nil
        let parameters = template.parameterPositions
        (keys, kinds, positions) = (parameters.map(\.key), parameters.map(\.kind), parameters.map(\.position))
    }

    /// The conditions' values with `values` bound, or `nil` when `values` is not exactly the
    /// parameters, each of its kind (the template's bind then reports what is wrong).
    func bind(_ values: [String: Value]) -> PointValues? {
        guard let fixed, values.count == keys.count else { return nil }
        var bound = PointValues()
        for (position, value) in fixed.enumerated() { bound[position] = value }
        // Each key found among the few parameters by comparison, not by hashing it.
        for (key, value) in values {
            guard let parameter = keys.firstIndex(of: key), kinds[parameter].admits(value) else { return nil }
            bound[positions[parameter]] = value
        }
        return bound
    }
}
