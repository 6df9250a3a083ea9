import LMDB

/// One unit of work for the writer: a function applied inside the batch's write transaction.
///
/// The writer calls `apply` on its own thread (or a lone caller on its, `Writer+CallerCommit.swift`). If `apply` throws, only this change set is rolled
/// back and only its caller sees the error: the writer abandons the transaction and applies the
/// batch again with this change set left out and the ones after it in nested transactions
/// (`WriterCore.ApplyPlan`). So `apply` may run more than once, on the same state each time: it
/// must depend only on the transaction, and anything it does outside it must be idempotent.
/// It must not block or wait for anything: every other change set in the batch is waiting for it.
struct ChangeSet: Sendable {
    /// Applies the change inside `transaction`, returning what the caller is told on success.
    let apply: @Sendable (inout WriteTransaction) throws -> any Sendable
    /// An estimate of the bytes the change writes, for bounding batches.
    let estimatedBytes: Int
    /// Committed in a batch of its own. For changes that do more than write through the
    /// transaction (a schema change drops a database, which closes its handle at once, and
    /// updates the collection's index list in memory): alone, no other change set's failure can
    /// make the writer apply it a second time, and no other change set sees its in-memory effect
    /// in one attempt and not in the next.
    var exclusive = false
    /// Undoes what `apply` did outside the transaction (a schema change's in-memory index list),
    /// when the change set does not commit — it failed, or its batch's commit did. Called on the
    /// writer thread before the next batch begins, so no other change set sees the undone effect.
    /// Only exclusive change sets have one: alone in their batch, one that fails commits nothing.
    var rollBack: (@Sendable () -> Void)? = nil
}
