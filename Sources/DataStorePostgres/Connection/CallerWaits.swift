import Foundation
import Synchronization

/// How many reads of the process may wait for their answers on a thread of Swift's cooperative
/// pool at once (``Connection/executePreparedAwaiting(_:_:pollingFor:gate:)``): at most half of its
/// threads, so that reads answered slowly never keep the rest of the application waiting, and
/// many reads at once wait on the event thread, holding none.
final class CallerWaits: Sendable {
    /// The process's gate: the cooperative pool has one thread per processor.
    static let shared = CallerWaits(limit: max(1, ProcessInfo.processInfo.activeProcessorCount / 2))

    /// The most waits at once.
    let limit: Int
    private let waiting = Atomic<Int>(0)
    /// Reads answered while their caller waited, and those whose window passed first, for tests.
    let answered = Atomic<Int>(0)
    let handedOver = Atomic<Int>(0)

    init(limit: Int) { self.limit = max(1, limit) }

    /// Takes a place among the waits, or returns `false` when all are taken.
    func enter() -> Bool {
        var current = waiting.load(ordering: .relaxed)
        while current < limit {
            let (exchanged, found) = waiting.compareExchange(
                expected: current, desired: current + 1, ordering: .acquiringAndReleasing)
            if exchanged { return true }
            current = found
        }
        return false
    }

    /// Gives back a place taken with ``enter()``.
    func leave() { waiting.subtract(1, ordering: .releasing) }

    /// How many callers are waiting now.
    var current: Int { waiting.load(ordering: .acquiring) }
}
