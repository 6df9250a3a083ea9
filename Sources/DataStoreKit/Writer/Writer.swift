import DataStoreCore
import Dispatch
import Foundation
import LMDB
import Synchronization
import DataStoreEngine

/// The one writer of an environment: queues change sets from every caller and commits them in
/// batches, one LMDB write transaction and one commit per batch on its thread (in durable mode
/// LMDB's commit syncs the data pages, then the meta page; see `Writer+Acknowledgement.swift`).
///
/// While one batch commits, the next gathers: each batch is whatever was queued meanwhile. A
/// change set that fails (a unique violation, a conflict, a bad value) is rolled back alone and
/// only its caller sees the error; then one commit acknowledges every other caller. Change sets are applied straight into the batch's transaction;
/// only once one fails is the batch applied again with each later change set in its own nested
/// transaction (LMDB's nested transactions cost megabytes of allocation each; see
/// `WriterCore.ApplyPlan`).
///
/// The write transaction runs on the writer's own thread from begin to commit (a lone small save's
/// on its caller's thread, `Writer+CallerCommit.swift`), with no suspension inside: LMDB requires a
/// write transaction to stay on the thread that began it. Callers `await`
/// only outside it, while their change set waits in the queue or for its commit.
final class Writer: Sendable {
    /// Bounds on batches and on the queue (the public ``WriterLimits``).
    typealias Limits = WriterLimits

    /// The state shared with the writer thread (tests drive a caller commit through it).
    let core: WriterCore

    /// Starts a writer thread for `environment`. While idle it wakes every
    /// `snapshotCheckInterval` (when not `nil`) to end snapshots past their age limit;
    /// `afterClose` runs on it once it has committed everything queued before ``close()``.
    init(
        environment: Environment,
        limits: Limits,
        durability: Durability,
        snapshotCheckInterval: Duration? = nil,
        changeLog: ChangeLog? = nil,
        transactionHook: WriteTransactionHook? = nil,
        afterCommit: @escaping @Sendable (CommitID, [CollectionChanges]) -> Void,
        afterClose: @escaping @Sendable () -> Void = {}
    ) {
        core = WriterCore(
            environment: environment, limits: limits, durability: durability,
            snapshotCheckInterval: snapshotCheckInterval, changeLog: changeLog, transactionHook: transactionHook,
            afterCommit: afterCommit)
        let core = self.core
        let thread = Thread {
            // Named from inside the thread, and in at most 15 bytes: Linux refuses longer thread
            // names, and profilers and /proc show only the OS name.
            Thread.current.name = "DataStoreWriter"
            core.run()
            afterClose()
        }
        thread.start()
        // And again from here: Foundation's setter names the OS thread only once `start()` has
        // stored its handle, which the thread's own line above can beat (the thread then keeps
        // the name of the thread that created it).
        thread.name = "DataStoreWriter"
    }

    deinit {
        core.close()
    }

    /// What the writer has done so far.
    public var metrics: WriterMetrics { core.state.withLock { $0.metrics } }

    /// Whether ``close()`` was called: later change sets fail with ``/DataStoreCore/DataStoreError/Code/closed``.
    var isClosed: Bool { core.state.withLock { $0.closed } }

    /// Change sets waiting for a batch (not counting the batch being committed).
    var queuedCount: Int { core.state.withLock { $0.queuedCount } }

    /// Submitters waiting for room in the queue.
    var waitingForRoom: Int { core.state.withLock { $0.roomWaiters.count } }

    /// Queues `apply` and returns its result once the batch carrying it has committed.
    ///
    /// - Throws: whatever `apply` threw (only this change set was rolled back), or
    ///   ``/DataStoreCore/DataStoreError/Code/storage`` when the commit itself failed (disk full, map at its
    ///   limit), or ``/DataStoreCore/DataStoreError/Code/closed`` after the store closed.
    /// - Parameters:
    ///   - exclusive: commit it in a batch of its own (see ``ChangeSet/exclusive``).
    ///   - rollBack: undoes `apply`'s effects outside the transaction when it does not commit
    ///     (see ``ChangeSet/rollBack``).
    ///   - mayCommitOnCaller: when the writer is idle, commit it on the calling thread instead of
    ///     handing it over (`Writer+CallerCommit.swift`); for short change sets a user's save makes.
    func submit<R: Sendable>(
        estimatedBytes: Int,
        exclusive: Bool = false,
        rollBack: (@Sendable () -> Void)? = nil,
        mayCommitOnCaller: Bool = false,
        _ apply: @escaping @Sendable (inout WriteTransaction) throws -> R
    ) async throws -> (result: R, commit: CommitID) {
        // A roll-back undoes effects that later change sets of a shared batch would already have seen.
        precondition(rollBack == nil || exclusive, "only an exclusive change set may have a roll-back")
        core.submitsInFlight.add(1, ordering: .relaxed)
        defer { core.submitsInFlight.subtract(1, ordering: .relaxed) }
        await core.waitForRoom()
        let change = ChangeSet(
            apply: { transaction in try apply(&transaction) }, estimatedBytes: estimatedBytes,
            exclusive: exclusive, rollBack: rollBack)
        // The writer built each `value` from `apply`, whose result type is R.
        if mayCommitOnCaller, let outcome = core.commitOnCallerIfIdle(change) {
            let (value, commit) = try outcome.get()
            return (value as! R, commit)
        }
        let (value, commit) = try await withCheckedThrowingContinuation { continuation in
            core.enqueue(change) { continuation.resume(with: $0) }
        }
        return (value as! R, commit)
    }

    /// Stops accepting change sets, lets the queued ones commit, and ends the thread.
    func close() { core.close() }
}

/// The writer's state, shared by its thread and its callers.
final class WriterCore: Sendable {
    struct Pending: Sendable {
        let change: ChangeSet
        let complete: @Sendable (Result<(any Sendable, CommitID), any Error>) -> Void
    }

    struct State: Sendable {
        var pending: [Pending] = []
        var pendingStart = 0
        var roomWaiters: [CheckedContinuation<Void, Never>] = []
        var closed = false
        var finished = false
        var metrics = WriterMetrics()
        /// The writer is waiting for work: the next caller wakes it. While it is busy, callers
        /// queue without a wake-up, which would cost the thread that saves a context switch.
        var writerSleeping = false
        /// A caller is committing its own change set on its thread while the writer sleeps
        /// (`Writer+CallerCommit.swift`): the writer takes no batch until it is done.
        var callerCommitting = false

        var queuedCount: Int { pending.count - pendingStart }
    }

    let environment: Environment
    let limits: Writer.Limits
    let state = Mutex(State())
    /// Calls to `submit` not yet returned. A caller commits its own change set only when it is the
    /// one: concurrent savers are better served by the writer's batches, each sync shared.
    let submitsInFlight = Atomic<Int>(0)
    /// Until when (`DispatchTime` uptime nanoseconds) saves go through the writer's thread even
    /// when it is idle: set by a caller commit that took longer than ``WriterLimits/maxCallerCommitDuration``.
    let callerCommitsPausedUntil = Atomic<UInt64>(0)
    /// The writer's batches in a row, during that pause, that served a lone saver (touched only by
    /// whoever holds the commit role: the writer's thread, or a caller committing).
    let loneBatchesInPause = Atomic<Int>(0)
    /// Signalled by whoever sets `writerSleeping` back to `false`.
    let wake = DispatchSemaphore(value: 0)
    let notifyCommitted: @Sendable (CommitID, [CollectionChanges]) -> Void
    /// Durable and relaxed modes: every commit syncs its data pages.
    let commitsSync: Bool
    /// The data file's use and size, for keeping it written ahead (see `Writer+FileSpace.swift`).
    let fileSpace = Mutex(FileSpace())
    /// How often an idle writer wakes to end expired snapshots (`nil`: never).
    let snapshotCheckInterval: Duration?
    /// Where each commit records its changes, inside its own transaction (`nil`: nowhere).
    let changeLog: ChangeLog?
    /// What the store does around each write transaction (``WriteTransactionHook``).
    let transactionHook: WriteTransactionHook?

    init(
        environment: Environment,
        limits: Writer.Limits,
        durability: Durability,
        snapshotCheckInterval: Duration?,
        changeLog: ChangeLog?,
        transactionHook: WriteTransactionHook? = nil,
        afterCommit: @escaping @Sendable (CommitID, [CollectionChanges]) -> Void
    ) {
        self.snapshotCheckInterval = snapshotCheckInterval
        self.changeLog = changeLog
        self.transactionHook = transactionHook
        self.environment = environment
        self.limits = limits
        self.commitsSync = durability != .none
        self.notifyCommitted = afterCommit
    }

    /// Waits while the queue is full.
    func waitForRoom() async {
        // Checked first without a continuation: suspending even to resume at once would send the
        // caller's task to the back of the executor's queue, behind every other ready task.
        guard state.withLock({ $0.queuedCount >= limits.maxQueuedChangeSets && !$0.closed }) else { return }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let mustWait = state.withLock { state in
                guard state.queuedCount >= limits.maxQueuedChangeSets && !state.closed else { return false }
                state.roomWaiters.append(continuation)
                return true
            }
            if !mustWait { continuation.resume() }
        }
    }

    func enqueue(
        _ change: ChangeSet, complete: @escaping @Sendable (Result<(any Sendable, CommitID), any Error>) -> Void
    ) {
        let (accepted, wakeWriter) = state.withLock { state in
            guard !state.closed else { return (false, false) }
            state.pending.append(Pending(change: change, complete: complete))
            // A caller committing on its own thread wakes the writer when it is done.
            guard state.writerSleeping, !state.callerCommitting else { return (true, false) }
            state.writerSleeping = false
            return (true, true)
        }
        if wakeWriter { wake.signal() }
        if !accepted {
            complete(.failure(DataStoreError(.closed, "the store at \(environment.path) is closed")))
        }
    }

    func close() {
        let wakeWriter = state.withLock { state in
            defer {
                state.closed = true
                state.writerSleeping = false
            }
            return state.writerSleeping
        }
        if wakeWriter { wake.signal() }
    }

    /// The writer thread's loop: each batch is what was queued while the last one committed.
    func run() {
        while true {
            let sleep = state.withLock { state in
                // Marked under the lock the callers queue under, so no wake-up is lost.
                state.writerSleeping = (state.queuedCount == 0 && !state.closed) || state.callerCommitting
                return state.writerSleeping
            }
            if sleep { sleepUntilWorkOrReaderExpiry() }
            while let batch = takeBatch() {
                commit(batch)
                // Old snapshots pin the pages this batch freed: let the expired ones go.
                environment.yieldExpiredReaders()
            }
            if state.withLock({ $0.closed && $0.queuedCount == 0 && !$0.callerCommitting }) { break }
        }
        // Anyone still waiting for room is told by `enqueue` that the store closed.
        let waiters = state.withLock { state in
            state.finished = true
            defer { state.roomWaiters = [] }
            return state.roomWaiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Sleeps until a caller queues work, waking every `snapshotCheckInterval` meanwhile to end
    /// snapshots past their age limit: other processes may be writing while this one is idle. (A
    /// wake-up per snapshot begun instead would cost every context a context switch.)
    private func sleepUntilWorkOrReaderExpiry() {
        guard let interval = snapshotCheckInterval else { return wake.wait() }
        let parts = interval.components
        let nanoseconds = max(parts.seconds * 1_000_000_000 + parts.attoseconds / 1_000_000_000, 1_000_000)
        while wake.wait(timeout: .now() + .nanoseconds(Int(min(nanoseconds, 3_600_000_000_000)))) == .timedOut {
            environment.yieldExpiredReaders()
            if state.withLock({ !$0.writerSleeping }) { return }
        }
    }

    /// Takes the next batch off the queue, bounded by count and bytes, and lets waiting
    /// submitters in.
    private func takeBatch() -> [Pending]? {
        let (batch, released) = state.withLock { state -> ([Pending], [CheckedContinuation<Void, Never>]) in
            // The caller committing on its thread holds the commit role; it wakes the writer after.
            guard !state.callerCommitting else { return ([], []) }
            var end = state.pendingStart
            var bytes = 0
            while end < state.pending.count, end - state.pendingStart < limits.maxChangeSetsPerBatch {
                if state.pending[end].change.exclusive {
                    // Alone: taken by itself when first, otherwise left for the next batch.
                    if end == state.pendingStart { end += 1 }
                    break
                }
                let size = state.pending[end].change.estimatedBytes
                if end > state.pendingStart && bytes + size > limits.maxBytesPerBatch { break }
                bytes += size
                end += 1
            }
            let batch = Array(state.pending[state.pendingStart..<end])
            state.pendingStart = end
            if state.pendingStart == state.pending.count {
                state.pending.removeAll(keepingCapacity: true)
                state.pendingStart = 0
            } else if state.pendingStart > 4_096 {
                state.pending.removeFirst(state.pendingStart)
                state.pendingStart = 0
            }
            let room = max(0, limits.maxQueuedChangeSets - state.queuedCount)
            let released = Array(state.roomWaiters.prefix(room))
            state.roomWaiters.removeFirst(released.count)
            return (batch, released)
        }
        for waiter in released { waiter.resume() }
        return batch.isEmpty ? nil : batch
    }
}
