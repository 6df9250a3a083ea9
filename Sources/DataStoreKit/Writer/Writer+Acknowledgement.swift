import DataStoreCore
import Dispatch
import LMDB

/// Telling observers and callers about a commit.
///
/// When `mdb_txn_commit` returns, the batch is as durable as the store's mode makes it: in
/// `.durable` mode LMDB has synced the data pages, then written the meta page through its
/// `O_DSYNC` descriptor (its standard commit, two syncs in order), so an acknowledged save
/// survives a machine crash.
///
/// LMDB's own commit is used rather than a second thread syncing the meta page: with the data file
/// written ahead (`Writer+FileSpace.swift`), waking that thread costs more than LMDB's meta write,
/// which syncs one page's range (docs/concurrency.md, Durability).
extension WriterCore {
    /// Tells observers of `batch`, then completes every caller: the caller of a batch of one here,
    /// those of a larger batch on a pool thread.
    ///
    /// Resuming a continuation enqueues its task and may wake a thread, several microseconds each;
    /// the writer thread — through which every write passes — would otherwise spend them between
    /// one commit and the next batch. Handing one resume to a pool thread costs the writer as much
    /// as the resume itself, and the caller a second hand-off.
    func acknowledge(_ batch: CommittedBatch) {
        if batch.succeeded > 0 { notifyCommitted(batch.commit, batch.changes) }
        // Before its savers are resumed, so that none of them can have saved again meanwhile.
        endCallerCommitPauseIfLone(
            batchSize: batch.pending.count, exclusive: batch.pending.first?.change.exclusive ?? false)
        if batch.pending.count == 1 {
            return batch.pending[0].complete(batch.outcomes[0].map { ($0, batch.commit) })
        }
        DispatchQueue.global().async {
            for (pending, outcome) in zip(batch.pending, batch.outcomes) {
                pending.complete(outcome.map { ($0, batch.commit) })
            }
        }
    }
}
