import DataStoreCore

/// Bounds on the writer's batches and queue, and on map growth (``DataStore/Options/writerLimits``).
public struct WriterLimits: Sendable, Hashable {
    /// The most change sets one write transaction carries.
    public var maxChangeSetsPerBatch: Int
    /// The most estimated bytes one write transaction carries (a single larger change set
    /// still goes alone).
    public var maxBytesPerBatch: Int
    /// The most change sets waiting; past this, `submit` waits for room (backpressure).
    public var maxQueuedChangeSets: Int
    /// The largest the map may be grown to after `mapFull`; past it, writes fail with
    /// ``/DataStoreCore/DataStoreError/Code/storage``.
    public var maxMapSize: Int
    /// How far ahead of the data the writer keeps the data file written (with zeros), in
    /// bytes, when commits sync (``Durability/durable`` and ``Durability/relaxed``): a commit
    /// that writes over existing blocks syncs faster than one that appends, whose sync also
    /// commits the file system's journal. The file is topped up when less than half is left,
    /// so it runs up to this much longer than the data. 0 turns it off.
    public var dataFileHeadroom: Int
    /// How long growing the map waits for this process's read transactions to end (LMDB
    /// resizes only with none live). Contexts' snapshots yield at once (their next read throws
    /// ``/DataStoreCore/DataStoreError/Code/snapshotExpired``); past this wait, the batch fails with
    /// ``/DataStoreCore/DataStoreError/Code/storage`` naming the readers still live, and new reads, held
    /// back meanwhile, go on.
    public var mapGrowthWait: Duration
    /// The largest save (in estimated bytes) the caller may commit on its own thread when the
    /// writer is idle, sparing the two thread wake-ups of handing it over and back; the caller's
    /// thread is then busy for its own commit (its sync included). 0 sends every save through the
    /// writer's thread.
    public var maxCallerCommitBytes: Int
    /// How long a caller commit may take (its sync included) before the store's saves go through
    /// the writer's thread for the next second, or until the writer's batches show a single saver:
    /// a caller's thread is one of the cooperative pool's, and while a slow disk keeps it blocked,
    /// other savers' tasks may not get a thread to save in (docs/concurrency.md, "A lone save").
    public var maxCallerCommitDuration: Duration
    /// How long, in nanoseconds, saves go through the writer after a caller commit that took
    /// longer than ``maxCallerCommitDuration``: a second; tests that must not see the pause run
    /// out make it longer.
    package var callerCommitPauseNanoseconds: UInt64 = 1_000_000_000
    /// How many of the writer's batches in a row, each of one change set with nothing queued
    /// behind it and no other save in flight, end that pause early: they show a lone saver, whom
    /// the writer's hand-offs only slow down, and not savers kept from a thread by the blocked one.
    package var loneBatchesEndingPause = 8

    /// Defaults: 1,024 change sets or 16 MiB per batch, 16,384 queued, map up to 1 TiB, 1 MiB
    /// of data-file headroom, 2 s of waiting for readers to let the map grow, saves up to 64 KiB
    /// committed by an idle writer's caller while such commits take at most 1 ms.
    public init(
        maxChangeSetsPerBatch: Int = 1_024,
        maxBytesPerBatch: Int = 16 << 20,
        maxQueuedChangeSets: Int = 16_384,
        maxMapSize: Int = 1 << 40,
        dataFileHeadroom: Int = 1 << 20,
        mapGrowthWait: Duration = .seconds(2),
        maxCallerCommitBytes: Int = 64 << 10,
        maxCallerCommitDuration: Duration = .milliseconds(1)
    ) {
        self.maxChangeSetsPerBatch = maxChangeSetsPerBatch
        self.maxBytesPerBatch = maxBytesPerBatch
        self.maxQueuedChangeSets = maxQueuedChangeSets
        self.maxMapSize = maxMapSize
        self.dataFileHeadroom = dataFileHeadroom
        self.mapGrowthWait = mapGrowthWait
        self.maxCallerCommitBytes = maxCallerCommitBytes
        self.maxCallerCommitDuration = maxCallerCommitDuration
    }
}

extension WriterLimits {
    /// ``maxCallerCommitDuration`` in nanoseconds, as the writer's clock counts.
    var maxCallerCommitNanoseconds: UInt64 { maxCallerCommitDuration.saturatingNanoseconds }
}
