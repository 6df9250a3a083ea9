import DataStoreCore
import Dispatch
import LMDB

extension WriterCore {
    /// How one attempt at committing a batch ended.
    private enum Attempt {
        case committed
        /// The map is full: grow it and try the same batch again.
        case mapFull(LMDBError)
        /// The transaction has too many dirty pages: split the batch.
        case transactionFull(LMDBError)
        /// Beginning or committing the transaction failed: every change set in it fails.
        case failed(any Error)
    }

    /// Commits `batch`, growing the map or splitting the batch as LMDB requires, and completes
    /// every change set in it exactly once. Runs on the writer thread.
    func commit(_ batch: [Pending]) {
        // A stack of batches still to commit, the next at the end, so splits keep their order.
        var work = [batch]
        while let next = work.popLast() {
            switch attempt(next) {
            case .committed:
                continue
            case .mapFull(let error):
                if growMap() {
                    work.append(next)
                } else {
                    fail(next, DataStoreError(.storage, "the store at \(environment.path) is full and its map "
                        + "may not grow past \(limits.maxMapSize) bytes", underlying: error))
                }
            case .transactionFull(let error):
                if next.count > 1 {
                    state.withLock { $0.metrics.batchSplits += 1 }
                    let middle = next.count / 2
                    work.append(Array(next[middle...]))
                    work.append(Array(next[..<middle]))
                } else {
                    fail(next, DataStoreError(.storage, "one change set is larger than a write transaction "
                        + "may hold in \(environment.path)", underlying: error))
                }
            case .failed(let error):
                fail(next, DataStoreError(.storage, "committing \(next.count) change set(s) to "
                    + "\(environment.path) failed", underlying: error))
            }
        }
    }

    /// One write transaction: each change set in a nested transaction, then one commit.
    private func attempt(_ batch: [Pending]) -> Attempt {
        let started = DispatchTime.now().uptimeNanoseconds
        var outcomes: [Result<any Sendable, any Error>] = []
        outcomes.reserveCapacity(batch.count)
        let commitID: CommitID
        do {
            var transaction = try environment.beginWrite()
            commitID = CommitID(rawValue: transaction.transactionID)
            for pending in batch {
                do {
                    let value = try transaction.nested { child in try pending.change.apply(&child) }
                    outcomes.append(.success(value))
                } catch {
                    // Map or transaction full concern the batch, not this change set.
                    if let code = Self.lmdbCode(of: error), code == .mapFull || code == .transactionFull {
                        throw error
                    }
                    outcomes.append(.failure(error))
                }
            }
            try transaction.commit()
        } catch {
            let lmdbError = (error as? LMDBError) ?? ((error as? DataStoreError)?.underlying as? LMDBError)
            switch lmdbError?.code {
            case .mapFull?: return .mapFull(lmdbError!)
            case .transactionFull?: return .transactionFull(lmdbError!)
            default: return .failed(lmdbError ?? error)
            }
        }
        let elapsed = DispatchTime.now().uptimeNanoseconds - started
        let successes = outcomes.compactMap { try? $0.get() }
        state.withLock { state in
            state.metrics.batches += 1
            state.metrics.committedChangeSets += successes.count
            state.metrics.failedChangeSets += outcomes.count - successes.count
            state.metrics.largestBatch = max(state.metrics.largestBatch, batch.count)
            state.metrics.commitNanoseconds += elapsed
            state.recentCommitNanoseconds = state.recentCommitNanoseconds == 0
                ? elapsed : (state.recentCommitNanoseconds * 7 + elapsed) / 8
        }
        let committed = CommittedBatch(commit: commitID, pending: batch, outcomes: outcomes, successes: successes)
        if acknowledgeAfterNextSync {
            // This commit's data sync also flushed the meta pages of the commits before it.
            acknowledge(awaitingSync.withLock { waiting in
                defer { waiting = [committed] }
                return waiting
            })
        } else {
            acknowledge([committed])
        }
        return .committed
    }

    /// Grows the map (doubling, at least by 64 MiB, at most to the limit). Returns `false` when
    /// it may not grow.
    private func growMap() -> Bool {
        guard let current = try? environment.info().mapSize else { return false }
        let target = min(max(current * 2, current + (64 << 20)), limits.maxMapSize)
        guard target > current else { return false }
        do {
            // Waits for live read transactions to end and holds new ones back meanwhile.
            try environment.setMapSize(target)
        } catch {
            return false
        }
        state.withLock { $0.metrics.mapGrowths += 1 }
        return true
    }

    private func fail(_ batch: [Pending], _ error: DataStoreError) {
        state.withLock { $0.metrics.failedChangeSets += batch.count }
        for pending in batch { pending.complete(.failure(error)) }
    }

    /// The LMDB code behind `error`, whether thrown as is or wrapped by the store.
    static func lmdbCode(of error: any Error) -> LMDBError.Code? {
        if let error = error as? LMDBError { return error.code }
        if let error = error as? DataStoreError, let underlying = error.underlying as? LMDBError { return underlying.code }
        return nil
    }
}
