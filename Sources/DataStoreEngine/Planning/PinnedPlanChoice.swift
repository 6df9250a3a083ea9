import Synchronization

/// The index choice a prepared query keeps for its one shape, valid while the collection's plan
/// cache keeps the generation it was made in: found without hashing a shape or searching a table.
///
/// The planner still re-scores the remembered index for each run's values and plans afresh when
/// the score changed (as with ``PlanCache``), so a kept choice is never applied where it no
/// longer fits.
package final class PinnedPlanChoice: Sendable {
    private let state = Mutex<(generation: Int, choice: PlanCache.Choice)?>(nil)

    /// No choice yet.
    package init() {}

    /// The choice made in `generation`, or `nil` (none made, or the indexes changed since).
    func choice(generation: Int) -> PlanCache.Choice? {
        state.withLock { state in
            guard let state, state.generation == generation else { return nil }
            return state.choice
        }
    }

    /// Keeps `choice`, made over the index list of `generation`.
    func remember(_ choice: PlanCache.Choice, generation: Int) {
        state.withLock { $0 = (generation, choice) }
    }
}
