import DataStoreCore
import DataStoreEngine

/// A query of window shape (`QueryPlan.windowScan(idField:)`: one condition per field, `==` or a
/// range, scalar values, at most a `limit`, answered from one window of one single-value index),
/// compiled once per parameter dictionary shape: a call encodes its values into the window and its
/// checks, without parsing the dictionary or planning again. It belongs to the generation of the
/// index list it was made from (``TableLayout/dictionaryShapes``), and is dropped with it.
final class PostgresWindowQuery: Sendable {
    /// The plan made for the first call's values. A runner reads only its structure (the kind of
    /// access, the index, its limit, no sort or offset), which every call of the shape shares.
    private let template: QueryPlan
    /// The template's scan, whose equalities and range each call replaces.
    private let scan: QueryPlan.IndexScan
    /// The index scanned.
    let index: StoredIndex
    /// For each value the scan fixes, in index order, the position of its condition.
    private let equalityPositions: [Int]
    /// The range condition that bounds the scan, if any.
    private let rangePosition: Int?
    /// Each condition's field and operator, in condition order.
    private let conditions: [(field: String, op: DataStoreCore.Operator)]
    /// The conditions' checks.
    private let checks: PointPredicates
    /// What the rows of a call with the template's limit are collected by: nothing of it depends
    /// on the values.
    private let collector: ResultCollector

    /// The compiled form of `plan` over `layout`, or `nil` when it is not of window shape.
    init?(plan: QueryPlan, layout: TableLayout) {
        guard let window = plan.windowScan(idField: layout.idField),
            let index = layout.indexes.first(where: { $0.definition == window.scan.index })
        else { return nil }
        template = plan
        scan = window.scan
        self.index = index
        equalityPositions = window.equalityPositions
        rangePosition = window.rangePosition
        conditions = plan.query.conditions.map { ($0.field, $0.op) }
        checks = PointPredicates(plan.query.conditions)
        collector = ResultCollector(plan: plan, idField: layout.idField, collection: layout.name)
    }

    /// The runner of a call whose conditions have `values`, in condition order, and whose limit
    /// is `limit` (`nil` exactly when the shape has none), over `layout`; `nil` when a range of
    /// these values is empty or one value, which the planner plans otherwise.
    func runner(_ values: borrowing PointValues, limit: Int?, layout: TableLayout) -> PostgresQueryRunner? {
        var scan = self.scan
        for (slot, position) in equalityPositions.enumerated() { scan.equalities[slot] = values[position] }
        for (position, condition) in conditions.enumerated() where condition.op != .equal {
            let range = Condition(field: condition.field, op: condition.op, value: values[position]).range
            guard let range, !range.isEmpty, range.equals == nil else { return nil }
            if position == rangePosition { scan.range = range }
        }
        let predicates = checks.predicates(values)
        let scans = [CandidateScan(layout, window: IndexWindow(scan: scan, budget: index.componentBudget), of: index)]
        guard limit != template.query.limit else {
            return PostgresQueryRunner(
                layout: layout, plan: template, predicates: predicates, scans: scans, collector: collector)
        }
        var plan = template
        plan.query.limit = limit
        return PostgresQueryRunner(
            layout: layout, plan: plan, predicates: predicates, scans: scans,
            collector: ResultCollector(plan: plan, idField: layout.idField, collection: layout.name))
    }
}
