import LMDB
import Synchronization

/// Keeping the data file written ahead of the data, so that commits write over existing blocks.
///
/// A commit that appends to the data file allocates blocks, and its sync must then also write the
/// file system's metadata (the allocation and the file's size; a journal commit on a journaling
/// ext4 or XFS). One that writes over existing blocks only flushes its pages. Measured here, that
/// made a small commit's sync about twice as slow (see `WriteTransaction.extendDataFile(to:)`),
/// and an event log appends at every commit. So when commits sync (durable and relaxed modes), the
/// writer keeps at least half of ``Writer/Limits/dataFileHeadroom`` zero-filled after LMDB's last
/// page, topping it up to the whole headroom inside a batch's transaction, before the commit whose
/// sync then covers it.
///
/// Bulk writes are left alone: a batch estimated at more than a quarter of the headroom, or the
/// first after one that grew the file by that much, amortizes the metadata write over many pages,
/// and zero-filling ahead of it would only double what it writes.
extension WriterCore {
    /// What the writer knows of its data file. Used on the writer thread only.
    struct FileSpace: Sendable {
        /// The bytes in use at the last check: `(last page + 1) × page size`.
        var usedEnd = 0
        /// The file's size as last read; LMDB's own appends make the file longer than this.
        var knownFileSize = 0
        /// After a failed extension, no other is tried before this transaction id.
        var retryAfterTransaction = 0
    }

    /// Whether the writer keeps the data file ahead of the data.
    var extendsDataFile: Bool { commitsSync && limits.dataFileHeadroom > 0 }

    /// Tops the zero-filled space after the data up to the headroom when less than half is left.
    /// Called inside a batch's transaction, just before its commit, with the batch's estimated
    /// bytes. A failure (the disk is full, the file may grow no further) is not the batch's: the
    /// commit goes on, and extending is tried again 1,024 transactions later.
    func extendDataFileIfLow(_ transaction: borrowing WriteTransaction, batchBytes: Int) {
        // Read now, under the write lock: current even when another process or a transaction
        // outside the writer committed since the last batch.
        let pageSize = environment.pageSize
        guard pageSize > 0, let info = try? environment.info() else { return }
        var space = fileSpace.withLock { $0 }
        // At most the map: no space past it is usable (this also keeps the sums below in range).
        let headroom = min(limits.dataFileHeadroom, info.mapSize)
        let usedEnd = (info.lastPageNumber + 1) * pageSize
        let growth = space.usedEnd == 0 ? 0 : usedEnd - space.usedEnd
        space.usedEnd = usedEnd
        defer { fileSpace.withLock { $0 = space } }
        guard info.lastTransactionID >= space.retryAfterTransaction, growth <= headroom / 4, batchBytes <= headroom / 4,
            usedEnd + headroom / 2 > space.knownFileSize
        else { return }
        do {
            space.knownFileSize = try transaction.dataFileSize()
            guard usedEnd + headroom / 2 > space.knownFileSize else { return }
            let target = min((usedEnd + headroom + pageSize - 1) / pageSize * pageSize, info.mapSize)
            guard target > space.knownFileSize else { return }
            space.knownFileSize = try transaction.extendDataFile(to: target)
            state.withLock { $0.metrics.dataFileExtensions += 1 }
        } catch {
            space.retryAfterTransaction = info.lastTransactionID + 1_024
        }
    }
}
