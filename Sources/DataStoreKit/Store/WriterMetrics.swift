import DataStoreEngine
/// Counters the writer keeps, for tests (which assert counts, never times) and benchmarks.
public struct WriterMetrics: Sendable, Hashable {
    /// Write transactions committed.
    public var batches = 0
    /// Change sets that committed.
    public var committedChangeSets = 0
    /// Change sets that failed alone (rolled back while the rest of their batch committed).
    public var failedChangeSets = 0
    /// Times a batch was applied again to isolate a change set that failed (change sets are
    /// applied straight into the batch's transaction until one fails; see `Writer`).
    public var isolationReplays = 0
    /// The largest number of change sets one batch carried.
    public var largestBatch = 0
    /// Change sets handled on the saving caller's thread, the writer being idle (see
    /// ``WriterLimits/maxCallerCommitBytes``), whether they committed or failed; those that
    /// committed are counted in ``batches`` too.
    public var callerCommits = 0
    /// Times the map was grown after `mapFull`.
    public var mapGrowths = 0
    /// Times growing the map failed because read transactions of this process stayed live past
    /// `Writer/Limits/mapGrowthWait` (their batches failed with ``/DataStoreCore/DataStoreError/Code/storage``).
    public var blockedMapGrowths = 0
    /// Times a batch was split after `transactionFull`.
    public var batchSplits = 0
    /// Times the writer wrote zeros after the data to keep the data file ahead of it (see
    /// `Writer/Limits/dataFileHeadroom`).
    public var dataFileExtensions = 0
    /// Total time spent inside write transactions (begin to end of commit), in nanoseconds.
    public var commitNanoseconds: UInt64 = 0

    /// Change sets per committed batch, on average.
    public var meanBatchSize: Double {
        batches == 0 ? 0 : Double(committedChangeSets + failedChangeSets) / Double(batches)
    }
}
