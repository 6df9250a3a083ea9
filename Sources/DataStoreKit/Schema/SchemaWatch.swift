import Foundation
import LMDB
import Synchronization

/// What this process knows of the stored schema generation (``StoreSchema/generationKey``), so
/// that a schema another process commits is reloaded before this one uses the indexes it changed.
///
/// LMDB's transaction ids are global and sequential across processes, so a transaction whose
/// snapshot is the last commit this process checked (or made itself) needs no `_meta` read.
final class SchemaWatch: Sendable {
    private struct State: Sendable {
        /// The generation the registered collections reflect; `nil` once an index list was put
        /// back by a roll-back, which may undo a reload.
        var generation: UInt64?
        /// A schema written by the transaction under way: its id and the generation it wrote.
        var pending: (transaction: Int, generation: UInt64)?
    }

    /// The newest commit whose stored schema the registered collections are known to reflect.
    private let checked = Atomic<Int>(0)
    private let state = Mutex(State())
    /// Held by every exclusive write transaction of the process (the kind that changes index
    /// lists), from before it begins until it ends, and by every reload: a reload never meets a
    /// transaction's own uncommitted index-list changes.
    let lock = NSRecursiveLock()
    private let environment: Environment
    /// The store whose collections this watch keeps current; written once, by the store's
    /// initializer, before the store is handed to anyone.
    private nonisolated(unsafe) weak var owner: DataStore?

    init(environment: Environment) {
        self.environment = environment
    }

    /// Makes `store` the one whose collections are reloaded.
    func attach(_ store: DataStore) {
        owner = store
    }

    /// The store whose collections this watch keeps current, while it lives.
    var store: DataStore? { owner }

    /// Before a query is planned: reloads the registered collections' schemas when another
    /// process committed since this process last checked and changed a schema.
    func refreshIfStale() {
        if isCurrent { return }
        owner?.refreshSchemasForRead()
    }

    /// The newest commit whose schema the registered collections are known to reflect.
    var checkedThrough: Int { checked.load(ordering: .acquiring) }

    private let foreignBuilds = Atomic<Bool>(false)
    /// Whether ``State/pending`` may hold a schema write, so transactions that write none skip the lock.
    private let hasPending = Atomic<Bool>(false)

    /// Reads of the stored generation this process made: tests check that a process alone with
    /// its store makes none per save or query.
    let generationReads = Atomic<Int>(0)

    /// Whether a registered collection may have an index another process builds from a
    /// snapshot, which this process's writes must report (set by the reloads, under ``lock``).
    var seesForeignBuilds: Bool {
        get { foreignBuilds.load(ordering: .acquiring) }
        set { foreignBuilds.store(newValue, ordering: .releasing) }
    }

    /// Whether the last commit of any process is one this process has checked: a cheap test
    /// (the environment's meta page, no transaction) that spares a read of `_meta`.
    var isCurrent: Bool {
        guard let last = try? environment.info().lastTransactionID else { return false }
        return last == checkedThrough
    }

    /// Whether `generation` is the one the registered collections reflect.
    func reflects(_ generation: UInt64) -> Bool {
        state.withLock { $0.generation == generation }
    }

    /// Records that the registered collections reflect `generation`, as stored at commit
    /// `commit`, unless a newer commit is known already.
    func confirm(_ generation: UInt64, through commit: Int) {
        state.withLock { state in
            guard commit >= checked.load(ordering: .relaxed) else { return }
            state.generation = generation
            checked.store(commit, ordering: .releasing)
        }
    }

    /// Notes the generation a schema write of the transaction `transaction` raised, to be known
    /// once it commits.
    func wrote(_ generation: UInt64, in transaction: Int) {
        state.withLock { $0.pending = (transaction, generation) }
        hasPending.store(true, ordering: .releasing)
    }

    /// Forgets any schema write of an attempt that did not commit.
    func beginTransaction() {
        guard hasPending.load(ordering: .acquiring) else { return }
        state.withLock { $0.pending = nil }
        hasPending.store(false, ordering: .releasing)
    }

    /// After this process committed `commit`: its own writes are known, so the next
    /// transaction's snapshot needs no check when it is this commit. `wroteRecords` says the
    /// commit changed something (LMDB gives an empty transaction no id of its own).
    func committed(_ commit: Int, wroteRecords: Bool) {
        // The common case, a commit of records only, needs no lock: it moves the checked commit
        // on only from the one its transaction checked.
        if !hasPending.load(ordering: .acquiring) {
            if wroteRecords {
                _ = checked.compareExchange(expected: commit - 1, desired: commit, ordering: .acquiringAndReleasing)
            }
            return
        }
        defer { hasPending.store(false, ordering: .releasing) }
        state.withLock { state in
            let wroteSchema = state.pending?.transaction == commit
            // The transaction checked the commit before it, so its own are all that is new.
            guard wroteSchema || wroteRecords, checked.load(ordering: .relaxed) == commit - 1 else {
                if wroteSchema { state.generation = nil }
                return
            }
            if let pending = state.pending, wroteSchema { state.generation = pending.generation }
            state.pending = nil
            checked.store(commit, ordering: .releasing)
        }
    }

    /// Makes the next transaction read the stored generation and reload: an index list was put
    /// back to what it was before a change set that did not commit.
    func forget() {
        state.withLock { state in
            state.generation = nil
            checked.store(0, ordering: .releasing)
        }
    }
}
