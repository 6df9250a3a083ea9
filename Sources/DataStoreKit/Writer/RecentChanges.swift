import DataStoreCore
import LMDB

/// The change log's newest records, kept in the environment's main database until they move to
/// `_changes` in a group: every commit rewrites the main database's page anyway, so a small
/// commit's record costs no page of its own there (docs/changes.md, "Record format").
///
/// Records join the recent ones only at the end and leave them all at once, so every recent record
/// is newer than every record in `_changes`; readers still merge the two by commit, so that a
/// process of an older build that appends to `_changes` meanwhile loses and reorders nothing.
struct RecentChanges: Sendable {
    /// The first key byte, never the first byte of a database name (UTF-8). lmdb.h: "Database names
    /// are keys in the unnamed database, and may be read but not written"; these keys are not names.
    static let keyPrefix: UInt8 = 0xFF
    /// The prefix and the commit id's 8 big-endian bytes.
    static let keyLength = 9
    /// The recent records move to `_changes` once the oldest is this many commits old.
    static let commitSpan = 16
    /// A record longer than this goes straight to `_changes`: the recent ones stay a small part
    /// of the main database's page.
    static let maxRecordBytes = 160
    /// The most bytes (keys and values) the recent records can take.
    static let maxBytes = commitSpan * (maxRecordBytes + keyLength)

    /// The environment's main database.
    let main: Database

    /// Where the recent records start: before the first, after every database name.
    private static let firstKey: [UInt8] = [keyPrefix]

    /// The key of `commit`'s recent record: ``keyPrefix``, then the commit id as `_changes` keys it.
    static func key(for commit: Int) -> [UInt8] {
        var key = [keyPrefix]
        key.reserveCapacity(keyLength)
        withUnsafeBytes(of: UInt64(commit).bigEndian) { key.append(contentsOf: $0) }
        return key
    }

    /// The commit of a recent record's key, or `nil` for a key that is not one (a database name).
    static func commit(ofKey key: UnsafeRawBufferPointer) throws(DataStoreError) -> Int? {
        guard key.first == keyPrefix else { return nil }
        return try ChangeRecord.commit(ofKey: UnsafeRawBufferPointer(rebasing: key.dropFirst()))
    }

    /// Visits the recent records from `commit` on, oldest first, while `body` returns true.
    func visit(
        from commit: Int, in transaction: borrowing some ReadableTransaction & ~Copyable,
        _ body: (_ commit: Int, _ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) throws -> Bool
    ) throws {
        try transaction.withCursor(on: main) { cursor in
            var goOn = try cursor.withSeek(atOrAfter: Self.key(for: commit)) { key, value in
                guard let commit = try Self.commit(ofKey: key) else { return false }
                return try body(commit, key, value)
            }
            while goOn == true {
                goOn = try cursor.withMove(.next) { key, value in
                    guard let commit = try Self.commit(ofKey: key) else { return false }
                    return try body(commit, key, value)
                }
            }
        }
    }

    /// The oldest recent record's commit, or `nil` when there is none.
    func oldestCommit(in transaction: borrowing some ReadableTransaction & ~Copyable) throws -> Int? {
        try transaction.withCursor(on: main) { cursor in
            try cursor.withSeek(atOrAfter: Self.firstKey) { key, _ in try Self.commit(ofKey: key) } ?? nil
        }
    }

    /// The bytes (keys and values) the recent records take.
    func bytes(in transaction: borrowing some ReadableTransaction & ~Copyable) throws -> Int {
        var total = 0
        try visit(from: 0, in: transaction) { _, key, value in
            total += key.count + value.count
            return true
        }
        return total
    }

    /// Records `value` as `commit`'s, either among the recent records or, when it is long, in
    /// `log` after the recent ones; first moves the recent ones to `log` when the oldest is
    /// ``commitSpan`` commits old. `commit` is newer than every record of either. Returns the
    /// oldest recent record's commit afterwards (`nil`: none).
    ///
    /// `oldest` is the oldest recent record's commit before, when the caller knows it (`.none`:
    /// read it). With `holding`, nothing moves and the record joins the recent ones whatever its
    /// length: for a commit that found no room to write `log` in a map that may not grow.
    /// `wroteLog` is set before anything is written to `log`, so that it holds even when that
    /// write throws.
    func append(
        _ value: [UInt8], commit: Int, log: Database, holding: Bool = false, knownOldest oldest: Int??,
        wroteLog: inout Bool, in transaction: inout WriteTransaction
    ) throws -> Int? {
        let isLong = value.count > Self.maxRecordBytes && !holding
        var oldest = try oldest ?? oldestCommit(in: transaction)
        if !holding, let first = oldest, isLong || commit - first >= Self.commitSpan {
            wroteLog = true
            try moveAll(to: log, in: &transaction)
            oldest = nil
        }
        if isLong {
            wroteLog = true
            try Self.put([(ChangeRecord.key(for: commit), value)], into: log, in: &transaction)
            return oldest
        }
        try transaction.put(value, forKey: Self.key(for: commit), in: main)
        return oldest ?? commit
    }

    /// Moves every recent record to `log`, in commit order.
    func moveAll(to log: Database, in transaction: inout WriteTransaction) throws {
        // Copied first: a value LMDB lends is valid only until the transaction's next update.
        var moving: [(key: [UInt8], value: [UInt8])] = []
        func take(_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) throws -> ([UInt8], [UInt8])? {
            try Self.commit(ofKey: key).map { (ChangeRecord.key(for: $0), Array(value)) }
        }
        try transaction.withCursor(on: main) { cursor in
            // A delete leaves the cursor on the next entry (`MDB_GET_CURRENT` reads it); the recent
            // records are the main database's last keys.
            var next = try cursor.withSeek(atOrAfter: Self.firstKey, take) ?? nil
            while let entry = next {
                moving.append(entry)
                try cursor.deleteCurrent()
                next = try cursor.withMove(.current, take) ?? nil
            }
        }
        guard !moving.isEmpty else { return }
        try Self.put(moving, into: log, in: &transaction)
    }

    /// Puts `entries`, in key order, into `log`: appended when they all sort after its last key
    /// (always, unless a process of an older build appended a newer commit there), else each in place.
    private static func put(
        _ entries: [(key: [UInt8], value: [UInt8])], into log: Database, in transaction: inout WriteTransaction
    ) throws {
        try transaction.withCursor(on: log) { cursor in
            let last = try cursor.withMove(.last) { key, _ in Array(key) }
            let inOrder = last.map { $0.lexicographicallyPrecedes(entries[0].key) } ?? true
            let options: PutOptions = inOrder ? .append : []
            for (key, value) in entries {
                try value.withUnsafeBytes { value in
                    try key.withUnsafeBytes { key in try cursor.put(value, forKey: key, options: options) }
                }
            }
        }
    }
}
