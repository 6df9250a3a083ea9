import DataStoreEngine
/// A committed batch whose callers have not been told yet.
struct CommittedBatch: Sendable {
    let commit: CommitID
    let pending: [WriterCore.Pending]
    let outcomes: [Result<any Sendable, any Error>]
    /// How many of its change sets succeeded.
    let succeeded: Int
    /// What they changed, merged.
    let changes: [CollectionChanges]
}
