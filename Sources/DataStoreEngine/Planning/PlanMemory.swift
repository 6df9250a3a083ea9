import DataStoreCore

/// Where the planner looks up and keeps the index it chose for a query's shape: a collection's
/// table of shapes, or the one choice a prepared query keeps for its own shape.
package enum PlanMemory {
    /// A collection's table, with its generation read before the index list being planned over.
    case shared(PlanCache, generation: Int)
    /// A prepared query's choice, with the collection's generation read before the index list.
    case pinned(PinnedPlanChoice, generation: Int)

    /// The choice remembered for `query`'s shape, if any (the shape is computed only for a table).
    func choice(for query: Query) -> PlanCache.Choice? {
        switch self {
        case .shared(let table, _): table.choice(for: PlanCache.Shape(query))
        case .pinned(let pinned, let generation): pinned.choice(generation: generation)
        }
    }

    /// Remembers `choice` for `query`'s shape.
    func remember(_ choice: PlanCache.Choice, for query: Query) {
        switch self {
        case .shared(let table, let generation):
            table.remember(choice, for: PlanCache.Shape(query), generation: generation)
        case .pinned(let pinned, let generation): pinned.remember(choice, generation: generation)
        }
    }
}
