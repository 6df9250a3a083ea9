import DataStoreCore
import Dispatch
import LMDB

/// A committed batch whose callers have not been told yet.
struct CommittedBatch: Sendable {
    let commit: CommitID
    let pending: [WriterCore.Pending]
    let outcomes: [Result<any Sendable, any Error>]
    let successes: [any Sendable]
}

/// Telling observers and callers about a commit.
///
/// When `mdb_txn_commit` returns, the batch is as durable as the store's mode makes it: in
/// `.durable` mode LMDB has synced the data pages, then written the meta page through its
/// `O_DSYNC` descriptor (its standard commit, two syncs in order), so an acknowledged save
/// survives a machine crash.
///
/// Durable mode used to commit with `MDB_NOMETASYNC` and hand each batch to a second thread that
/// synced the meta page while the writer went on with the next batch. Once the data file was kept
/// written ahead of the data (`Writer+FileSpace.swift`), LMDB's own commit was faster: the hand-off
/// woke a sleeping thread (115–190 µs on the virtual machine measured, whose idle CPUs halt), and
/// the second thread's whole-file sync ran into the writer's next one, where LMDB's meta write
/// syncs one page's range. Event log at 64 savers, alternating binaries: 1.22–1.34× the raw
/// coalescer against 1.03–1.35× (docs/concurrency.md, Durability).
extension WriterCore {
    /// Tells observers of `batch`, then completes every caller on a pool thread.
    ///
    /// Resuming a continuation enqueues its task and may wake a thread, several microseconds each;
    /// the writer thread — through which every write passes — would otherwise spend them between
    /// one commit and the next batch (perf: 8–14 % of its time at 64 savers).
    func acknowledge(_ batch: CommittedBatch) {
        if !batch.successes.isEmpty { notifyCommitted(batch.commit, batch.successes) }
        DispatchQueue.global().async {
            for (pending, outcome) in zip(batch.pending, batch.outcomes) {
                pending.complete(outcome.map { ($0, batch.commit) })
            }
        }
    }
}
