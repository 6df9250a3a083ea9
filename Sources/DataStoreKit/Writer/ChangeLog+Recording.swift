import DataStoreCore
import Foundation
import LMDB

extension ChangeLog {
    /// The changes of a batch's successful change sets, one entry per collection in the order
    /// first touched; a change set that changed nothing (a remove of what was already gone, last
    /// writer wins) adds nothing.
    static func merged(_ results: [any Sendable]) -> [CollectionChanges] {
        // A batch touches few collections: a short list searched in place, not a dictionary, and
        // a collection's first changes are taken as they are (their arrays shared, not copied).
        var merged: [CollectionChanges] = []
        for result in results {
            // A context's save, the usual result, is cast to its own type first: a cast to a
            // protocol looks up the conformance, several times the cost.
            guard let changes = (result as? ContextSaveReport)?.changes ?? (result as? any ReportsChanges)?.changes
            else { continue }
            for change in changes
            where !(change.inserted.isEmpty && change.updated.isEmpty && change.removed.isEmpty) {
                guard let position = merged.firstIndex(where: { $0.collection == change.collection }) else {
                    merged.append(change)
                    continue
                }
                merged[position].inserted += change.inserted
                merged[position].updated += change.updated
                merged[position].removed += change.removed
            }
        }
        return merged
    }

    /// Records what `results` changed under the transaction's own id, then trims a bounded step.
    /// Runs on the writer thread inside the batch's transaction, before its commit. Returns
    /// whether `results` changed anything; `nil` when the log is off, which does not look.
    @discardableResult
    func record(_ results: [any Sendable], in transaction: inout WriteTransaction) throws -> Bool? {
        guard let database else { return nil }
        let changes = Self.merged(results)
        guard !changes.isEmpty else { return false }
        let now = Int64((Date().timeIntervalSince1970 * 1_000).rounded(.down))
        let record = ChangeRecord(
            commit: CommitID(rawValue: transaction.transactionID), milliseconds: now, changes: changes)
        // Commit ids only grow, so every record goes at the end of the log.
        try transaction.put(
            record.encoded(), forKey: ChangeRecord.key(for: record.commit.rawValue), in: database, options: .append)
        try trim(database, now: now, in: &transaction)
        return true
    }

    /// Deletes up to ``trimStep`` of the oldest records past the retention's age or size (never the
    /// one just written), and notes the newest deleted so a reader resuming before it is told.
    private func trim(_ database: Database, now: Int64, in transaction: inout WriteTransaction) throws {
        let cutoff = options.maxAge.map { now - Self.milliseconds($0) }
        var excessBytes = 0
        if let maxBytes = options.maxBytes {
            excessBytes = try transaction.statistics(of: database).bytesUsed - maxBytes
        }
        guard cutoff != nil || excessBytes > 0 else { return }
        // The oldest record's time, once read, spares a cursor per commit until it ages out.
        if excessBytes <= 0, let cutoff, let known = oldestTime.withLock({ $0 }), known >= cutoff { return }
        var trimmedThrough: Int?
        for _ in 0..<Self.trimStep {
            // The record just written stays: the feed always holds the newest commit.
            guard let (commit, time, size) = try oldest(database, in: transaction),
                commit < transaction.transactionID
            else { break }
            guard excessBytes > 0 || time < (cutoff ?? .min) else {
                if trimmedThrough == nil { oldestTime.withLock { $0 = time } }
                break
            }
            try transaction.delete(ChangeRecord.key(for: commit), in: database)
            excessBytes -= size
            trimmedThrough = commit
        }
        if let trimmedThrough {
            oldestTime.withLock { $0 = nil }
            try transaction.put(
                ChangeRecord.key(for: trimmedThrough), forKey: ChangeRecord.trimmedThroughKey, in: database)
        }
    }

    /// The oldest record's commit, time and size in bytes (key and value).
    private func oldest(_ database: Database, in transaction: borrowing WriteTransaction) throws -> (Int, Int64, Int)? {
        try transaction.withCursor(on: database) { cursor in
            try cursor.withSeek(atOrAfter: ChangeRecord.key(for: 1)) { key, value in
                var reader = ChangeRecordReader(bytes: value, commit: try ChangeRecord.commit(ofKey: key))
                // A record whose time cannot be read is trimmed first rather than blocking every commit.
                _ = try? reader.integer(byteCount: 1, "the format byte")
                let time = (try? reader.integer(byteCount: 8, "the commit time")).map { Int64(bitPattern: $0) }
                return (reader.commit, time ?? .min, key.count + value.count)
            }
        }
    }

    private static func milliseconds(_ duration: Duration) -> Int64 {
        let parts = duration.components
        return parts.seconds * 1_000 + parts.attoseconds / 1_000_000_000_000_000
    }
}
