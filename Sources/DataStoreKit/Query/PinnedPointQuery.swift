import DataStoreCore
import Synchronization
import DataStoreEngine

/// What a prepared query's shape compiles to over one generation of its collection's index list
/// (``PlanCache/generation``): a ``PointQuery``, or nothing when the general path answers it.
package final class PinnedPointQuery: Sendable {
    /// What is known for a generation.
    enum Compiled {
        /// Nothing yet: the next run plans and compiles.
        case unknown
        /// The shape has no point form.
        case general
        /// The compiled form.
        case point(PointQuery)
    }

    private let state = Mutex<(generation: Int, point: PointQuery?)?>(nil)

    /// Nothing compiled yet.
    package init() {}

    /// What was compiled over the index list of `generation`.
    func compiled(generation: Int) -> Compiled {
        state.withLock { state in
            guard let state, state.generation == generation else { return .unknown }
            return state.point.map(Compiled.point) ?? .general
        }
    }

    /// Keeps `point` (`nil`: no point form), compiled over the index list of `generation`.
    func remember(_ point: PointQuery?, generation: Int) {
        state.withLock { $0 = (generation, point) }
    }
}
