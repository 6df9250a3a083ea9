import DataStoreCore
import Foundation
import LMDB
import DataStoreEngine

extension ChangeLog {
    /// Records `changes`, a batch's merged changes, under the transaction's own id, then trims a
    /// bounded step. Runs inside the batch's transaction, before its commit. Returns whether there
    /// were any; `nil` when the log is off, which does not look. `holdingRecent` keeps the recent
    /// records where they are, and `wroteLog` says whether `_changes` was written
    /// (``RecentChanges/append(_:commit:log:holding:wroteLog:in:)``).
    @discardableResult
    func record(
        _ changes: [CollectionChanges], holdingRecent: Bool = false, wroteLog: inout Bool,
        in transaction: inout WriteTransaction
    ) throws -> Bool? {
        guard let database, let recent else { return nil }
        guard !changes.isEmpty else { return false }
        let now = Int64((Date().timeIntervalSince1970 * 1_000).rounded(.down))
        let record = ChangeRecord(
            commit: CommitID(rawValue: transaction.transactionID), milliseconds: now, changes: changes)
        let value = record.encoded()
        if value.count <= RecentChanges.maxRecordBytes || holdingRecent { try allowRecentRecords(in: &transaction) }
        // Commit ids only grow, so every record goes at the end of the log.
        let commit = record.commit.rawValue
        let oldestRecent = try recent.append(
            value, commit: commit, log: database, holding: holdingRecent,
            knownOldest: knownOldestRecent(before: commit),
            wroteLog: &wroteLog, in: &transaction)
        let trimmedRecent = try trim(database, recent, now: now, in: &transaction)
        recentBounds.withLock { $0 = trimmedRecent ? nil : RecentBounds(commit: commit, oldest: oldestRecent) }
        return true
    }

    /// The oldest recent record's commit before `commit`, as this process's last recorded commit
    /// left it (`.none`: not known). Known only when that commit was the one just before: any
    /// other commit in between, by another process or one not recorded here, may have moved the
    /// recent records.
    private func knownOldestRecent(before commit: Int) -> Int?? {
        recentBounds.withLock { bounds in
            guard let bounds, bounds.committed, bounds.commit == commit - 1 else { return .none }
            return .some(bounds.oldest)
        }
    }

    /// Notes that the write transaction `commit` committed: the recent records' bounds it recorded
    /// are then the store's (``knownOldestRecent(before:)``). Called by the writer after every
    /// commit, before the next write transaction can begin.
    func committed(_ commit: Int) {
        recentBounds.withLock { bounds in
            if bounds?.commit == commit { bounds?.committed = true }
        }
    }

    /// Raises the store's format to the one with recent records, once: the feed of a build that
    /// predates them would miss those records.
    private func allowRecentRecords(in transaction: inout WriteTransaction) throws {
        guard !formatAllowsRecent.load(ordering: .relaxed) else { return }
        // Known only once read from a committed state: this transaction may still be rolled back.
        if try StoreSchema.raiseFormat(to: StoreSchema.recentChangesFormatVersion, in: &transaction, meta: meta) {
            formatAllowsRecent.store(true, ordering: .relaxed)
        }
    }

    /// Deletes up to ``trimStep`` of the oldest records past the retention's age or size (never the
    /// one just written), and notes the newest deleted so a reader resuming before it is told.
    /// Returns whether it deleted a recent record.
    private func trim(_ database: Database, _ recent: RecentChanges, now: Int64, in transaction: inout WriteTransaction)
        throws -> Bool
    {
        let cutoff = options.maxAge.map { now - Self.milliseconds($0) }
        var excessBytes = 0
        if let maxBytes = options.maxBytes {
            excessBytes = try transaction.statistics(of: database).bytesUsed - maxBytes
            // The recent records are a few pages' worth at most: read only when they could matter.
            if excessBytes > -RecentChanges.maxBytes { excessBytes += try recent.bytes(in: transaction) }
        }
        guard cutoff != nil || excessBytes > 0 else { return false }
        // The oldest record's time, once read, spares a cursor per commit until it ages out.
        if excessBytes <= 0, let cutoff, let known = oldestTime.withLock({ $0 }), known >= cutoff { return false }
        var trimmedThrough: Int?
        var trimmedRecent = false
        for _ in 0..<Self.trimStep {
            // The record just written stays: the feed always holds the newest commit.
            guard let oldest = try oldest(database, recent, in: transaction), oldest.commit < transaction.transactionID
            else { break }
            guard excessBytes > 0 || oldest.time < (cutoff ?? .min) else {
                if trimmedThrough == nil { oldestTime.withLock { $0 = oldest.time } }
                break
            }
            if oldest.isRecent {
                trimmedRecent = true
                try transaction.delete(RecentChanges.key(for: oldest.commit), in: recent.main)
            } else {
                try transaction.delete(ChangeRecord.key(for: oldest.commit), in: database)
            }
            excessBytes -= oldest.size
            trimmedThrough = oldest.commit
        }
        if let trimmedThrough {
            oldestTime.withLock { $0 = nil }
            try transaction.put(
                ChangeRecord.key(for: trimmedThrough), forKey: ChangeRecord.trimmedThroughKey, in: database)
        }
        return trimmedRecent
    }

    /// The oldest record's commit, time and size in bytes (key and value), and whether it is a recent one.
    private func oldest(_ database: Database, _ recent: RecentChanges, in transaction: borrowing WriteTransaction)
        throws -> (commit: Int, time: Int64, size: Int, isRecent: Bool)?
    {
        typealias Summary = (commit: Int, time: Int64, size: Int)
        // A record whose time cannot be read is trimmed first rather than blocking every commit.
        func summary(commit: Int, key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) -> Summary {
            var reader = ChangeRecordReader(bytes: value, commit: commit)
            _ = try? reader.integer(byteCount: 1, "the format byte")
            let time = (try? reader.integer(byteCount: 8, "the commit time")).map { Int64(bitPattern: $0) }
            return (commit, time ?? .min, key.count + value.count)
        }
        let logged = try transaction.withCursor(on: database) { cursor in
            try cursor.withSeek(atOrAfter: ChangeRecord.key(for: 1)) { key, value in
                summary(commit: try ChangeRecord.commit(ofKey: key), key: key, value: value)
            }
        }
        var waiting: Summary?
        try recent.visit(from: 0, in: transaction) { commit, key, value in
            waiting = summary(commit: commit, key: key, value: value)
            return false
        }
        // The recent records are the newer, unless a process of an older build appended to `_changes`.
        if let logged, waiting.map({ logged.commit < $0.commit }) ?? true {
            return (logged.commit, logged.time, logged.size, false)
        }
        return waiting.map { ($0.commit, $0.time, $0.size, true) }
    }

    private static func milliseconds(_ duration: Duration) -> Int64 {
        let parts = duration.components
        return parts.seconds * 1_000 + parts.attoseconds / 1_000_000_000_000_000
    }
}
