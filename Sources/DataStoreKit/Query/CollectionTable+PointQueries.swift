import DataStoreCore
import DataStoreEngine

extension CollectionTable {
    /// What the parameter dictionary `params` (with `digest`, ``DictionaryDigest/of(_:)``)
    /// compiles to, with its values bound to `values`: its point query, `.some(nil)` for a shape
    /// the general path answers, or `nil` when the shape is not known yet
    /// (``learnShape(of:digest:query:plan:generation:)`` then records it).
    func dictionaryShape(of params: [String: Value], digest: Int, values: inout PointValues) -> PointQuery?? {
        // A compiled form skips planning, so it checks here what `plan` would: whether another
        // process changed the indexes (a reload forgets every shape).
        schemaWatch?.refreshIfStale()
        let generation = planCache.generation
        return dictionaryShapes.withLock { shapes in
            guard shapes.generation == generation,
                let slot = shapes.table.shapes.slot(digest: digest, params, values: &values)
            else { return nil }
            return .some(shapes.table.compiled[slot])
        }
    }

    /// How many dictionary shapes are remembered, and how many of them compiled to a point query
    /// (for tests).
    var dictionaryShapeCounts: (all: Int, points: Int) {
        let generation = planCache.generation
        return dictionaryShapes.withLock { shapes in
            shapes.generation == generation ? (shapes.table.shapes.count, shapes.table.compiledCount) : (0, 0)
        }
    }

    /// Records the shape of `params`, which parsed to `query` and was planned as `plan` over the
    /// index list of `generation` (read before planning): compiled to a ``PointQuery`` when the
    /// query and the plan have a point shape, else marked for the general path.
    func learnShape(of params: [String: Value], digest: Int, query: Query, plan: QueryPlan, generation: Int) {
        // Fewer conditions than keys: two keys said the same, which no point shape does.
        let point = query.conditions.count == params.count ? pointQuery(query, plan: plan) : nil
        guard let shape = DictionaryShape(of: params, query: query, compiled: point != nil) else { return }
        dictionaryShapes.withLock { shapes in
            guard generation == planCache.generation else { return }
            if shapes.generation != generation { (shapes.generation, shapes.table) = (generation, ShapeTable()) }
            shapes.table.insert(shape, point, digest: digest, capacity: PlanCache.capacity)
        }
    }

    /// `query` compiled to a ``PointQuery`` over the index `plan` scans, or `nil` when the query
    /// or its plan has no point shape.
    func pointQuery(_ query: Query, plan: QueryPlan) -> PointQuery? {
        guard case .indexScan(let scan) = plan.access,
            let index = readyIndexes.first(where: { $0.definition == scan.index })
        else { return nil }
        let narrowing = plan.intersection.flatMap { scan in readyIndexes.first { $0.definition == scan.index } }
        return PointQuery(query, plan: plan, index: index, narrowingIndex: narrowing, idField: idField)
    }
}
