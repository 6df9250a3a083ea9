import DataStoreCore
import Dispatch
import LMDB
import DataStoreEngine

extension WriterCore {
    /// How one attempt applies a batch's change sets.
    ///
    /// A nested transaction per change set is what lets one fail alone, but LMDB makes each
    /// nested transaction allocate and free several megabytes of bookkeeping (a dirty-page list
    /// and a free-page list sized for the largest transaction, `mdb_txn_begin`), and in a busy
    /// heap each free costs a consolidation pass. Most change sets succeed, so an attempt first
    /// applies them straight into the batch's transaction. When one throws, the transaction —
    /// with whatever that change set half-wrote — is abandoned, and the batch is applied again:
    /// the change sets before it (which succeeded on the same state, so succeed again) straight,
    /// the failed one not at all (its error is known: it failed on exactly that state), and
    /// those after it each in a nested transaction. A batch is thus applied at most twice (plus
    /// the retries after growing the map). A change set that does more than write through the
    /// transaction is committed alone (``ChangeSet/exclusive``), so no other change set can cause
    /// it to be applied again.
    struct ApplyPlan {
        /// Change sets that failed on this batch's state in an earlier attempt, with their errors.
        var knownFailures: [Int: any Error] = [:]
        /// From this position on, each change set runs in its own nested transaction.
        var nestedFrom: Int
        /// The change log's recent records stay where they are: moving them found no room in a
        /// map that may not grow, and the batch's own changes may still fit.
        var holdsRecentChanges = false

        /// Everything straight into the batch's transaction.
        static func direct(_ count: Int) -> ApplyPlan { ApplyPlan(nestedFrom: count) }
    }

    /// How one attempt at committing a batch ended.
    private enum Attempt {
        case committed
        /// A change set applied straight into the transaction failed: apply the batch again so.
        case replay(ApplyPlan)
        /// The map is full: grow it and try the same batch again. `wroteLog`: the change log's
        /// `_changes` was written, which a retry may avoid by holding the recent records.
        case mapFull(LMDBError, wroteLog: Bool)
        /// The transaction has too many dirty pages: split the batch.
        case transactionFull(LMDBError)
        /// Beginning or committing the transaction failed: every change set in it fails.
        case failed(any Error)
        /// The commit failed after LMDB began writing its meta page (the environment is unusable
        /// since): whether transaction `id` landed is known only once the store is reopened.
        case outcomeUnknown(any Error, id: Int)
        /// The transaction hook asked for a new transaction before anything was applied.
        case again
    }

    /// Commits `batch`, growing the map or splitting the batch as LMDB requires, and completes
    /// every change set in it exactly once. Runs on the writer thread, or on a caller's
    /// (`onCaller`), which leaves a full map to the writer: growing it waits for readers. Returns
    /// `false` when it did so, having completed nothing.
    @discardableResult
    func commit(_ batch: [Pending], onCaller: Bool = false) -> Bool {
        // Returning early completes nothing only while nothing of the batch has committed yet.
        precondition(!onCaller || batch.count == 1, "a caller commits its own change set alone")
        // A stack of batches still to commit, the next at the end, so splits keep their order.
        var work = [(batch, ApplyPlan.direct(batch.count))]
        while let (next, plan) = work.popLast() {
            switch attempt(next, plan) {
            case .committed:
                continue
            case .again:
                work.append((next, plan))
            case .replay(let isolating):
                if isolating.knownFailures.count == next.count {
                    // Every change set failed (a batch of one, usually): nothing to commit.
                    state.withLock { $0.metrics.failedChangeSets += next.count }
                    for (position, pending) in next.enumerated() {
                        Self.fail(pending, isolating.knownFailures[position]!)
                    }
                    continue
                }
                state.withLock { $0.metrics.isolationReplays += 1 }
                work.append((next, isolating))
            case .mapFull(let error, let wroteLog):
                if onCaller { return false }
                switch growMap() {
                case .grown:
                    work.append((next, plan))
                case .atLimit where wroteLog:
                    var holding = plan
                    holding.holdsRecentChanges = true
                    work.append((next, holding))
                case let growth:
                    fail(next, mapFull: error, growth)
                }
            case .transactionFull(let error):
                work += splitOrFail(next, error)
            case .failed(let error):
                fail(
                    next,
                    DataStoreError(
                        .storage,
                        "committing \(next.count) change set(s) to "
                            + "\(environment.path) failed; nothing of them was written", underlying: error))
            case .outcomeUnknown(let error, let id):
                fail(
                    next,
                    DataStoreError(
                        .outcomeUnknown,
                        "committing \(next.count) change set(s) to \(environment.path) failed while LMDB wrote the "
                            + "commit's meta page, so it may or may not have landed, and the store must be reopened. "
                            + "Once reopened, changes(after: CommitID(rawValue: \(id - 1))) begins with commit \(id) "
                            + "if it landed; a document it wrote has version \(id) if so", underlying: error))
            }
        }
        return true
    }

    /// Fails every change set of `batch`, whose transaction found the map full and could not grow it.
    private func fail(_ batch: [Pending], mapFull error: LMDBError, _ growth: Growth) {
        guard case .failed(let growthError) = growth else {
            fail(
                batch,
                DataStoreError(
                    .storage,
                    "the store at \(environment.path) is full and its map "
                        + "may not grow past \(limits.maxMapSize) bytes", underlying: error))
            return
        }
        // Blocked by readers (the message names them), or refused by LMDB.
        fail(
            batch,
            DataStoreError(
                .storage,
                "the store is full and its map could not grow: "
                    + (growthError.code == .mapResizeBlocked ? growthError.context : "\(growthError)"),
                underlying: growthError))
    }

    /// The halves of a batch too large for one write transaction, the first half last (the work
    /// stack pops it first); none when one change set alone is too large, which then fails.
    private func splitOrFail(_ batch: [Pending], _ error: LMDBError) -> [([Pending], ApplyPlan)] {
        guard batch.count > 1 else {
            fail(
                batch,
                DataStoreError(
                    .storage,
                    "one change set is larger than a write transaction may hold in \(environment.path)",
                    underlying: error))
            return []
        }
        state.withLock { $0.metrics.batchSplits += 1 }
        let middle = batch.count / 2
        return [(Array(batch[middle...]), .direct(batch.count - middle)), (Array(batch[..<middle]), .direct(middle))]
    }

    /// One write transaction applying the batch as `plan` says, then one commit.
    private func attempt(_ batch: [Pending], _ plan: ApplyPlan) -> Attempt {
        let started = DispatchTime.now().uptimeNanoseconds
        var outcomes: [Result<any Sendable, any Error>] = []
        outcomes.reserveCapacity(batch.count)
        let commitID: CommitID
        // What the change sets that succeeded wrote, as the table layer tallied it.
        var writes = NetChanges()
        var succeeded = 0
        let changes: [CollectionChanges]
        var changedRecords: Bool?
        var wroteLog = false
        let exclusive = batch.count == 1 && batch[0].change.exclusive
        transactionHook?.enter(exclusive)
        defer { transactionHook?.leave(exclusive) }
        do {
            var transaction = try environment.beginWrite()
            if let transactionHook, try !transactionHook.prepare(&transaction) { return .again }
            commitID = CommitID(rawValue: transaction.transactionID)
            for (position, pending) in batch.enumerated() {
                switch try apply(pending, at: position, plan, in: &transaction) {
                case .outcome(let outcome, let tallied):
                    outcomes.append(outcome)
                    if case .success = outcome {
                        succeeded += 1
                        writes.append(tallied)
                    }
                case .replay(let isolating): return .replay(isolating)
                }
            }
            changes = writes.changes
            // In the batch's own transaction, under its own id: the log never disagrees with the data.
            changedRecords = try changeLog?.record(
                changes, holdingRecent: plan.holdsRecentChanges, wroteLog: &wroteLog, in: &transaction)
            if extendsDataFile {
                extendDataFileIfLow(transaction, batchBytes: batch.reduce(0) { $0 &+ $1.change.estimatedBytes })
            }
            do { try transaction.commit() } catch {
                // A commit that failed before its meta page is rolled back whole; one that failed
                // writing it leaves LMDB unable to say, and unusable.
                if environment.hasFailedFatally { return .outcomeUnknown(error, id: commitID.rawValue) }
                throw error
            }
            changeLog?.committed(commitID.rawValue)
        } catch {
            return Self.unfinished(by: error, wroteLog: wroteLog)
        }
        if let transactionHook {
            transactionHook.committed(commitID.rawValue, changedRecords ?? !changes.isEmpty)
        }
        count(batch.count, succeeded: succeeded, since: started)
        let committed = CommittedBatch(
            commit: commitID, pending: batch, outcomes: outcomes, succeeded: succeeded, changes: changes)
        acknowledge(committed)
        return .committed
    }

    /// What applying one change set of a batch comes to.
    private enum Applied {
        /// Its result, and what it changed when it succeeded.
        case outcome(Result<any Sendable, any Error>, writes: NetChanges)
        /// The change set failed with its writes in the batch's own transaction: run the batch
        /// again as this plan says.
        case replay(ApplyPlan)
    }

    /// Applies the change set at `position` in `transaction` (directly, or in a nested transaction
    /// from `plan.nestedFrom` on); throws only what concerns the whole batch.
    private func apply(
        _ pending: Pending, at position: Int, _ plan: ApplyPlan, in transaction: inout WriteTransaction
    ) throws -> Applied {
        if let known = plan.knownFailures[position] { return .outcome(.failure(known), writes: NetChanges()) }
        // The table layer notes each record the change set writes in the tally its transaction carries.
        let tally = ChangeTally()
        transaction.attachment = tally
        defer { transaction.attachment = nil }
        do {
            if position < plan.nestedFrom {
                return .outcome(.success(try pending.change.apply(&transaction)), writes: tally.writes)
            }
            let result = try transaction.nested { child in try pending.change.apply(&child) }
            return .outcome(.success(result), writes: tally.writes)
        } catch {
            // Map or transaction full concern the batch, not this change set.
            if let code = Self.lmdbCode(of: error), code == .mapFull || code == .transactionFull { throw error }
            guard position < plan.nestedFrom else { return .outcome(.failure(error), writes: NetChanges()) }
            // Its partial writes are in the batch's transaction: abandon it (going out of scope
            // aborts it) and isolate this change set. A failure known for a later position was met
            // on a state that included this change set's writes: forget it, and run that one again
            // (nested).
            var isolating = plan
            isolating.knownFailures = plan.knownFailures.filter { $0.key < position }
            isolating.knownFailures[position] = error
            isolating.nestedFrom = position + 1
            return .replay(isolating)
        }
    }

    /// What an attempt that threw comes to: a map or transaction to make room in, or a failure.
    private static func unfinished(by error: any Error, wroteLog: Bool) -> Attempt {
        let lmdbError = (error as? LMDBError) ?? ((error as? DataStoreError)?.underlying as? LMDBError)
        switch lmdbError?.code {
        case .mapFull?: return .mapFull(lmdbError!, wroteLog: wroteLog)
        case .transactionFull?: return .transactionFull(lmdbError!)
        default: return .failed(lmdbError ?? error)
        }
    }

    /// Counts a committed batch of `size` change sets in the metrics.
    private func count(_ size: Int, succeeded: Int, since started: UInt64) {
        let elapsed = DispatchTime.now().uptimeNanoseconds - started
        state.withLock { state in
            state.metrics.batches += 1
            state.metrics.committedChangeSets += succeeded
            state.metrics.failedChangeSets += size - succeeded
            state.metrics.largestBatch = max(state.metrics.largestBatch, size)
            state.metrics.commitNanoseconds += elapsed
        }
    }

    /// How growing the map went.
    private enum Growth {
        case grown
        /// The map is at `Writer.Limits.maxMapSize`.
        case atLimit
        /// Readers of this process stayed live (`.mapResizeBlocked`), or LMDB refused the size.
        case failed(LMDBError)
    }

    /// Grows the map (doubling, at least by 64 MiB, at most to the limit), waiting at most
    /// `Writer.Limits.mapGrowthWait` for this process's read transactions to end.
    private func growMap() -> Growth {
        let current: Int
        do { current = try environment.info().mapSize } catch { return .failed(error) }
        let target = min(max(current * 2, current + (64 << 20)), limits.maxMapSize)
        guard target > current else { return .atLimit }
        do {
            // Holds new transactions back, asks contexts' snapshots to yield, and waits for the rest.
            try environment.setMapSize(target, waitingAtMost: limits.mapGrowthWait)
        } catch {
            state.withLock { $0.metrics.blockedMapGrowths += 1 }
            return .failed(error)
        }
        state.withLock { $0.metrics.mapGrowths += 1 }
        return .grown
    }

    private func fail(_ batch: [Pending], _ error: DataStoreError) {
        state.withLock { $0.metrics.failedChangeSets += batch.count }
        for pending in batch { Self.fail(pending, error) }
    }

    /// Undoes `pending`'s effects outside the transaction, here on the writer thread, then tells
    /// its caller.
    private static func fail(_ pending: Pending, _ error: any Error) {
        pending.change.rollBack?()
        pending.complete(.failure(error))
    }

    /// The LMDB code behind `error`, whether thrown as is or wrapped by the store.
    static func lmdbCode(of error: any Error) -> LMDBError.Code? {
        if let error = error as? LMDBError { return error.code }
        if let error = error as? DataStoreError, let underlying = error.underlying as? LMDBError {
            return underlying.code
        }
        return nil
    }
}
