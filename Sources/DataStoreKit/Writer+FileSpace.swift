import LMDB
import Synchronization

/// Keeping the data file written ahead of the data, so that commits write over existing blocks.
///
/// A commit that appends to the data file allocates blocks, and its sync then also commits the
/// file system's journal; one that writes over existing blocks only flushes them. Measured here,
/// that made a small commit's sync about twice as slow (see
/// `WriteTransaction.extendDataFile(to:)`), and an event log appends at every commit. So when
/// commits sync (durable and relaxed modes), the writer keeps at least half of
/// ``Writer/Limits/dataFileHeadroom`` zero-filled after LMDB's last page, topping it up to the
/// whole headroom inside a batch's transaction, before the commit whose sync then covers it.
///
/// Bulk writes are left alone: a batch that grew the file by more than a quarter of the headroom
/// amortizes its journal commit over many pages, and zero-filling ahead of it would only double
/// what it writes.
extension WriterCore {
    /// What the writer knows of its data file. Used on the writer thread only.
    struct FileSpace: Sendable {
        /// LMDB's page size, read once.
        var pageSize = 0
        /// The bytes in use after the last commit: `(last page + 1) × page size`.
        var usedEnd = 0
        /// How much the last commit grew `usedEnd`.
        var lastGrowth = 0
        /// The map's size after the last commit: no space past it is usable.
        var mapSize = 0
        /// The file's size as last read; LMDB's own appends make the file longer than this.
        var knownFileSize = 0
        /// Commits seen, and the commit after which extending is tried again after a failure.
        var commits = 0
        var retryAfterCommit = 0
    }

    /// Whether the writer keeps the data file ahead of the data.
    var extendsDataFile: Bool { commitsSync && limits.dataFileHeadroom > 0 }

    /// Tops the zero-filled space after the data up to the headroom when less than half is left.
    /// Called inside a batch's transaction, just before its commit. A failure (the disk is full,
    /// the file may grow no further) is not the batch's: the commit goes on, and extending is
    /// tried again 1,024 commits later.
    func extendDataFileIfLow(_ transaction: borrowing WriteTransaction) {
        var space = fileSpace.withLock { $0 }
        let headroom = limits.dataFileHeadroom
        if space.pageSize == 0, let info = try? environment.info(), let statistics = try? environment.statistics() {
            space.pageSize = statistics.pageSize
            space.usedEnd = (info.lastPageNumber + 1) * statistics.pageSize
            space.mapSize = info.mapSize
        }
        guard space.pageSize > 0, space.commits >= space.retryAfterCommit, space.lastGrowth <= headroom / 4,
              space.usedEnd + headroom / 2 > space.knownFileSize else { return }
        var extended = false
        do {
            space.knownFileSize = try transaction.dataFileSize()
            if space.usedEnd + headroom / 2 > space.knownFileSize {
                let target = min((space.usedEnd + headroom + space.pageSize - 1) / space.pageSize * space.pageSize, space.mapSize)
                if target > space.knownFileSize {
                    space.knownFileSize = try transaction.extendDataFile(to: target)
                    extended = true
                }
            }
        } catch {
            space.retryAfterCommit = space.commits + 1_024
        }
        fileSpace.withLock { $0 = space }
        if extended { state.withLock { $0.metrics.dataFileExtensions += 1 } }
    }

    /// Records what a commit used of the file.
    func noteFileUse(_ info: Environment.Info) {
        fileSpace.withLock { space in
            guard space.pageSize > 0 else { return }
            let usedEnd = (info.lastPageNumber + 1) * space.pageSize
            space.lastGrowth = max(0, usedEnd - space.usedEnd)
            space.usedEnd = usedEnd
            space.mapSize = info.mapSize
            space.commits += 1
        }
    }
}
