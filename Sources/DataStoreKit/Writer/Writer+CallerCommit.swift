import DataStoreCore
import Foundation
import LMDB
import Synchronization
import DataStoreEngine

/// Committing a lone change set on the thread of the caller that saves it.
///
/// Through the writer's thread, a lone save takes two hand-offs: the caller wakes the sleeping
/// writer, and the writer resumes the caller's task, which wakes a pool thread; where idle CPUs
/// halt, each wake-up costs more than the commit's own work. So when the writer is idle (asleep,
/// nothing queued, no other caller committing) and no other save is in flight, the caller takes
/// the commit role and runs the writer's own commit on its thread: the write transaction still
/// begins and commits on one thread with no suspension inside, and the caller blocks for its own
/// commit only, never for another batch's. Whoever saves meanwhile queues as before, and the caller
/// wakes the writer for them when done.
///
/// The caller's thread belongs to the cooperative pool, and the commit blocks it through the disk's
/// sync. When the pool is busy, the other savers' tasks cannot start while it is blocked, so each
/// save finds the writer idle again and saves run one after another instead of coalescing. A slow
/// sync makes that costly and the hand-offs' saving small, so a caller commit that took longer than
/// ``WriterLimits/maxCallerCommitDuration`` sends the store's saves through the writer for a while,
/// until the writer's batches show that one saver is all there is.
extension WriterCore {
    /// Caller commits running now, in every store of the process.
    static let callerCommitsRunning = Atomic<Int>(0)
    /// At most this many at once, so that at least half the cooperative pool (one thread per core)
    /// is never blocked in a caller's sync, however many stores save at once.
    static let maxCallerCommitsRunning = max(1, ProcessInfo.processInfo.activeProcessorCount / 2)

    /// Commits `change` on this thread if the writer is idle and the change is small; `nil` when
    /// it is not, or when the map must grow first (which waits for readers, so it is the writer's
    /// job): the caller then queues it.
    func commitOnCallerIfIdle(_ change: ChangeSet) -> Result<(any Sendable, CommitID), any Error>? {
        // At most this caller's own `submit` is in flight: nobody else is saving.
        guard !change.exclusive, change.estimatedBytes <= limits.maxCallerCommitBytes,
            submitsInFlight.load(ordering: .relaxed) <= 1
        else { return nil }
        let started = DispatchTime.now().uptimeNanoseconds
        guard started >= callerCommitsPausedUntil.load(ordering: .relaxed) else { return nil }
        guard
            Self.callerCommitsRunning.wrappingAdd(1, ordering: .acquiringAndReleasing).newValue
                <= Self.maxCallerCommitsRunning
        else {
            Self.callerCommitsRunning.wrappingSubtract(1, ordering: .acquiringAndReleasing)
            return nil
        }
        defer { Self.callerCommitsRunning.wrappingSubtract(1, ordering: .acquiringAndReleasing) }
        let claimed = state.withLock { state in
            guard state.writerSleeping, state.queuedCount == 0, !state.closed, !state.callerCommitting else {
                return false
            }
            state.callerCommitting = true
            return true
        }
        guard claimed else { return nil }
        let outcome = CallerOutcome()
        let finished = commit([Pending(change: change, complete: { outcome.set($0) })], onCaller: true)
        let ended = DispatchTime.now().uptimeNanoseconds
        if ended - started > limits.maxCallerCommitNanoseconds {
            // A new pause counts its own lone batches: the writer takes none while this caller commits.
            loneBatchesInPause.store(0, ordering: .relaxed)
            callerCommitsPausedUntil.store(ended + limits.callerCommitPauseNanoseconds, ordering: .relaxed)
        }
        // As the writer does after each batch: old snapshots pin the pages this commit freed.
        environment.yieldExpiredReaders()
        releaseCommitRole(finished: finished)
        return finished ? outcome.take() : nil
    }

    /// Ends a caller-commit pause early once ``WriterLimits/loneBatchesEndingPause`` batches in a
    /// row were each one change set with nothing queued behind it and no other save in flight: a
    /// slow disk with one saver, where the writer's hand-offs add to every save and coalesce
    /// nothing. An exclusive change set, always a batch of its own, neither counts nor breaks the
    /// run. Called for each committed batch before its savers are resumed (a caller's own commit
    /// never runs during a pause, so only the writer's batches count).
    func endCallerCommitPauseIfLone(batchSize: Int, exclusive: Bool = false) {
        let pausedUntil = callerCommitsPausedUntil.load(ordering: .relaxed)
        guard pausedUntil != 0 else { return }
        guard DispatchTime.now().uptimeNanoseconds < pausedUntil else {
            callerCommitsPausedUntil.store(0, ordering: .relaxed)
            loneBatchesInPause.store(0, ordering: .relaxed)
            return
        }
        if exclusive { return }
        // The batch's own saver is still in `submit`: one in flight is its.
        guard batchSize == 1, submitsInFlight.load(ordering: .relaxed) <= 1, state.withLock({ $0.queuedCount == 0 })
        else {
            loneBatchesInPause.store(0, ordering: .relaxed)
            return
        }
        let lone = loneBatchesInPause.load(ordering: .relaxed) + 1
        guard lone >= limits.loneBatchesEndingPause else {
            loneBatchesInPause.store(lone, ordering: .relaxed)
            return
        }
        loneBatchesInPause.store(0, ordering: .relaxed)
        callerCommitsPausedUntil.store(0, ordering: .relaxed)
    }

    /// Gives the commit role back, waking the writer for what was queued meanwhile, or to close.
    private func releaseCommitRole(finished: Bool) {
        let wakeWriter = state.withLock { state in
            state.callerCommitting = false
            if finished { state.metrics.callerCommits += 1 }
            guard state.writerSleeping, state.queuedCount > 0 || state.closed else { return false }
            state.writerSleeping = false
            return true
        }
        if wakeWriter { wake.signal() }
    }
}
