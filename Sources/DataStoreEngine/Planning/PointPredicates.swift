package import DataStoreCore

/// The checks of a compiled query's conditions, made once from the first call's conditions: each
/// call's checks copy their parts and take its values (``PointValues``, in condition order).
package struct PointPredicates: Sendable {
    /// Each condition's check with the first call's value, in ``/DataStoreCore/RecordPredicate/ordered(_:)`` order.
    private let templates: [RecordPredicate]
    /// For each template, the position of its condition.
    private let positions: [Int]

    /// The templates of `conditions`.
    package init(_ conditions: [Condition]) {
        templates = RecordPredicate.ordered(conditions)
        let fields = conditions.map(\.field)
        positions = templates.map { template in fields.firstIndex(of: template.condition.field)! }
    }

    /// The checks of a call with `values`, in ``/DataStoreCore/RecordPredicate/ordered(_:)`` order.
    package func predicates(_ values: borrowing PointValues) -> [RecordPredicate] {
        templates.indices.map { RecordPredicate(templates[$0], value: values[positions[$0]]) }
    }
}
