import LMDB

/// What the store does around each of the writer's transactions: the writer knows nothing of
/// schemas, the store brings its index lists up to date with other processes' commits.
struct WriteTransactionHook: Sendable {
    /// Runs before the transaction begins, on its thread, told whether the batch is an exclusive
    /// change set (the kind that changes the store's own state); ``leave`` follows once it ended.
    let enter: @Sendable (_ exclusive: Bool) -> Void
    /// Runs first inside the transaction, before any change set; `false` means the transaction
    /// must be abandoned and begun again (it cannot use database handles opened after it began).
    let prepare: @Sendable (inout WriteTransaction) throws -> Bool
    /// Runs once the transaction has committed as `commit`; `wroteRecords` says it changed records.
    let committed: @Sendable (_ commit: Int, _ wroteRecords: Bool) -> Void
    /// Runs once the transaction has ended, committed or not, told what ``enter`` was.
    let leave: @Sendable (_ exclusive: Bool) -> Void
}
