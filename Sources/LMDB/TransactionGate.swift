import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Counts the live transactions of one environment so the map can be resized safely.
///
/// lmdb.h on `mdb_env_set_mapsize`: "It may be called at later times if no transactions are
/// active in this process. Note that the library does not check for this condition, the caller
/// must ensure it explicitly." Every transaction enters the gate when it begins and leaves when it
/// ends; a resize closes the gate, waits for the count to reach zero, resizes, and reopens it.
/// The common path is two atomic operations; only a resize waits.
final class TransactionGate: Sendable {
    private let live = Atomic<Int>(0)
    private let closed = Atomic<Bool>(false)
    /// Serialises resizers, so one closes the gate at a time.
    private let resizer = Mutex<Void>(())

    /// Registers a transaction about to begin; waits while a resize is under way.
    func enter() {
        while true {
            live.add(1, ordering: .sequentiallyConsistent)
            if !closed.load(ordering: .sequentiallyConsistent) { return }
            // A resize is in progress: step back out so it can see zero, then wait.
            live.subtract(1, ordering: .sequentiallyConsistent)
            while closed.load(ordering: .sequentiallyConsistent) { sched_yield() }
        }
    }

    /// Registers the end of a transaction that entered.
    func leave() {
        live.subtract(1, ordering: .sequentiallyConsistent)
    }

    /// The number of transactions now live in this process.
    var liveCount: Int { live.load(ordering: .sequentiallyConsistent) }

    /// Runs `body` while no transaction is live and none can begin.
    ///
    /// - Precondition: the calling thread holds no transaction of this environment, or this
    ///   waits forever.
    func withNoLiveTransactions<R, E: Error>(_ body: () throws(E) -> R) throws(E) -> R {
        try resizer.withLock { (_) throws(E) -> R in
            closed.store(true, ordering: .sequentiallyConsistent)
            defer { closed.store(false, ordering: .sequentiallyConsistent) }
            while live.load(ordering: .sequentiallyConsistent) != 0 { usleep(50) }
            return try body()
        }
    }
}
