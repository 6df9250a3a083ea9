import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Counts the live transactions of one environment so the map can be resized safely, and knows
/// the long-lived ones by name.
///
/// lmdb.h on `mdb_env_set_mapsize`: "It may be called at later times if no transactions are
/// active in this process. Note that the library does not check for this condition, the caller
/// must ensure it explicitly." Every transaction enters the gate when it begins and leaves when it
/// ends; a resize closes the gate, waits for the count to reach zero, resizes, and reopens it.
/// The common path is two atomic operations; only a resize waits, and never without bound.
///
/// Long-lived read transactions (a context's snapshot, ``Environment/beginRead()``) also register
/// a ``Environment/ReaderRegistration`` (a lock and a table entry, once per transaction), so that
/// a resize can ask them to yield and name the ones that would not, and statistics can show their
/// age. Short ``Environment/read(_:)`` calls do not register.
final class TransactionGate: Sendable {
    /// A registered long-lived read transaction.
    struct Holder: Sendable {
        let registration: Environment.ReaderRegistration
        let began: ContinuousClock.Instant
        let snapshotID: Int
    }

    private struct Holders {
        var next = 1
        var entries: [Int: Holder] = [:]
    }

    private let live = Atomic<Int>(0)
    private let closed = Atomic<Bool>(false)
    /// Serialises resizers, so one closes the gate at a time; holds the registrations that kept
    /// the last resize from happening (see ``withNoLiveTransactions(waitingAtMost:resizingTo:blocked:_:)``).
    private let resizer = Mutex<Set<Int>>([])
    private let holders = Mutex(Holders())

    /// Registers a transaction about to begin; waits while a resize is under way (which is bounded).
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

    /// Records a long-lived read transaction (already entered and begun); returns its number.
    func register(_ registration: Environment.ReaderRegistration, snapshotID: Int) -> Int {
        let holder = Holder(registration: registration, began: .now, snapshotID: snapshotID)
        return holders.withLock { holders in
            defer { holders.next += 1 }
            holders.entries[holders.next] = holder
            return holders.next
        }
    }

    /// Forgets a registration when its transaction ends.
    func unregister(_ number: Int) {
        holders.withLock { _ = $0.entries.removeValue(forKey: number) }
    }

    /// The registered transactions, oldest first, with their numbers.
    var registered: [(number: Int, holder: Holder)] {
        holders.withLock { $0.entries.map { (number: $0.key, holder: $0.value) } }.sorted {
            $0.holder.began < $1.holder.began
        }
    }

    /// Asks registered transactions that can yield to end, each for the reason `reason` gives
    /// (`nil`: not this one), and returns how many were asked. Their callbacks run here, outside
    /// the table's lock, since ending a transaction unregisters it.
    @discardableResult
    func askToYield(_ reason: (Holder) -> Environment.YieldReason?) -> Int {
        let asked = holders.withLock { holders in
            holders.entries.values.compactMap { holder in
                holder.registration.yield == nil ? nil : reason(holder).map { (holder, $0) }
            }
        }
        for (holder, reason) in asked { holder.registration.yield?(reason) }
        return asked.count
    }

    /// Runs `body` while no transaction is live and none can begin.
    ///
    /// Closes the gate, asks registered transactions to yield (every few milliseconds, since one
    /// in use answers only once it is idle), and waits at most `timeout` for the live count to
    /// reach zero. If it does not, it reopens the gate and throws `blocked`'s error for the
    /// registered transactions still live and the number of others. When registered transactions
    /// that blocked the previous resize are still live, it throws at once: they did not yield
    /// then, and waiting again would hold every new transaction of the process back once more.
    ///
    /// - Precondition: the calling thread holds no transaction of this environment; if it does,
    ///   this fails after `timeout`.
    func withNoLiveTransactions<R>(
        waitingAtMost timeout: Duration,
        resizingTo bytes: Int,
        blocked: (_ holders: [Holder], _ others: Int, _ waited: Duration) -> LMDBError,
        _ body: () throws(LMDBError) -> R
    ) throws(LMDBError) -> R {
        try resizer.withLock { (lastBlockers: inout Set<Int>) throws(LMDBError) -> R in
            let stillBlocking = registered.filter { lastBlockers.contains($0.number) }
            if !stillBlocking.isEmpty {
                throw blocked(stillBlocking.map(\.holder), 0, .zero)
            }
            closed.store(true, ordering: .sequentiallyConsistent)
            defer { closed.store(false, ordering: .sequentiallyConsistent) }
            let clock = ContinuousClock()
            let start = clock.now
            var lastAsked: ContinuousClock.Instant? = nil
            while live.load(ordering: .sequentiallyConsistent) != 0 {
                let now = clock.now
                if now - start >= timeout {
                    let remaining = registered
                    lastBlockers = Set(remaining.filter { $0.holder.registration.yield == nil }.map(\.number))
                    let others = max(0, live.load(ordering: .sequentiallyConsistent) - remaining.count)
                    throw blocked(remaining.map(\.holder), others, now - start)
                }
                if lastAsked.map({ now - $0 >= .milliseconds(5) }) ?? true {
                    askToYield { _ in .mapResize(toBytes: bytes) }
                    lastAsked = now
                }
                usleep(50)
            }
            lastBlockers = []
            return try body()
        }
    }
}
