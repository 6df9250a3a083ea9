import DataStoreCore
import DataStoreKit

/// A query of point shape (`QueryPlan.pointScan(idField:)`: `==` conditions with scalar values
/// that its plan answers from one window of one single-value index), compiled once per parameter
/// dictionary shape: a call encodes its values into the window and its checks, without parsing
/// the dictionary or planning again. It belongs to the generation of the index list it was made
/// from (``TableLayout/dictionaryShapes``), and is dropped with it.
final class PostgresPointQuery: Sendable {
    /// The plan made for the first call's values. A runner reads only its structure (the kind of
    /// access, the index, no sort, limit or offset), which every call of the shape shares.
    private let template: QueryPlan
    /// The template's scan, whose equalities each call replaces.
    private let scan: QueryPlan.IndexScan
    /// The index scanned.
    let index: StoredIndex
    /// For each value the scan fixes, in index order, the position of its condition.
    private let positions: [Int]
    /// Each condition's check with the first call's value, in `RecordPredicate.ordered(_:)` order,
    /// and for each, the position of its condition.
    private let predicateTemplates: [RecordPredicate]
    private let predicatePositions: [Int]
    /// What every call's rows are collected by: nothing of it depends on the values.
    private let collector: ResultCollector

    /// The compiled form of `plan` over `layout`, or `nil` when it is not of point shape.
    init?(plan: QueryPlan, layout: TableLayout) {
        guard let (scan, positions) = plan.pointScan(idField: layout.idField),
            let index = layout.indexes.first(where: { $0.definition == scan.index })
        else { return nil }
        self.template = plan
        self.scan = scan
        self.index = index
        self.positions = positions
        let conditions = plan.query.conditions
        let templates = RecordPredicate.ordered(conditions)
        predicateTemplates = templates
        let fields = conditions.map(\.field)
        predicatePositions = templates.map { template in fields.firstIndex(of: template.condition.field)! }
        collector = ResultCollector(plan: plan, idField: layout.idField, collection: layout.name)
    }

    /// The runner of a call whose conditions have `values`, in condition order, over `layout`.
    func runner(_ values: borrowing PointValues, layout: TableLayout) -> PostgresQueryRunner {
        var scan = self.scan
        for (slot, position) in positions.enumerated() { scan.equalities[slot] = values[position] }
        let predicates = predicateTemplates.indices.map {
            RecordPredicate(predicateTemplates[$0], value: values[predicatePositions[$0]])
        }
        let window = IndexWindow(scan: scan, budget: index.componentBudget)
        return PostgresQueryRunner(
            layout: layout, plan: template, predicates: predicates,
            scans: [CandidateScan(layout, window: window, of: index, versions: false)], collector: collector)
    }
}
