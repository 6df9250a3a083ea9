import DataStoreCore
import DataStoreEngine

extension TableLayout {
    /// What the parameter dictionary `params` (with `digest`, `DictionaryDigest.of(_:)`) compiles
    /// to, with its values bound to `values`: its compiled query, `.some(nil)` for a shape the
    /// general path answers, or `nil` when the shape is not known under the current index list
    /// (``learnShape(of:digest:query:plan:generation:)`` then records it).
    func dictionaryShape(of params: [String: Value], limited: Bool, digest: Int, values: inout PointValues)
        -> PostgresWindowQuery??
    {
        let generation = planCache.generation
        return dictionaryShapes.withLock { shapes in
            guard shapes.generation == generation,
                let slot = shapes.table.shapes.slot(digest: digest, params, limited: limited, values: &values)
            else { return nil }
            return .some(shapes.table.compiled[slot])
        }
    }

    /// Records the shape of `params`, which parsed to `query` and was planned as `plan` over the
    /// index list of `generation` (read before planning): compiled when the query and the plan have
    /// a window shape, else marked for the general path. Shapes of an earlier index list are
    /// forgotten first; one planned over a list that changed meanwhile is not kept.
    func learnShape(of params: [String: Value], digest: Int, query: Query, plan: QueryPlan, generation: Int) {
        // A range these values leave empty or one value was planned otherwise: the next call's
        // values tell the shape.
        let degenerate = query.conditions.contains { condition in
            condition.op != .equal && (condition.range.map { $0.isEmpty || $0.equals != nil } ?? false)
        }
        if degenerate { return }
        // Fewer conditions than keys: two keys said the same, which no window shape does.
        let window = query.conditions.count == params.count ? PostgresWindowQuery(plan: plan, layout: self) : nil
        guard
            let shape = DictionaryShape(
                of: params, query: query, limited: query.limit != nil, compiled: window != nil)
        else { return }
        dictionaryShapes.withLock { shapes in
            guard generation == planCache.generation else { return }
            if shapes.generation != generation { (shapes.generation, shapes.table) = (generation, ShapeTable()) }
            shapes.table.insert(shape, window, digest: digest, capacity: PlanCache.capacity)
        }
    }
}
