import DataStoreCore
import LMDB

/// The change log's newest records, kept in the environment's main database until they move to
/// `_changes` in a group (docs/changes.md, "Record format").
///
/// Every commit rewrites the main database's page, which holds the named databases' roots; a
/// record appended to `_changes` also rewrites that database's last leaf and the branch pages
/// above it. Kept in the main database, a small commit's record rides on a page the commit writes
/// anyway, and the log's own pages are written once per group instead of once per commit.
///
/// Every recent record is newer than every record in `_changes`: records join the recent ones only
/// at the end, and leave them all at once, oldest first.
struct RecentChanges: Sendable {
    /// The first key byte: never the first byte of a database name, which is UTF-8.
    static let keyPrefix: UInt8 = 0xFF
    /// The recent records move to `_changes` once the oldest is this many commits old.
    static let commitSpan = 16
    /// A record longer than this goes straight to `_changes`: the recent ones stay a small part
    /// of the main database's page.
    static let maxRecordBytes = 160
    /// The most bytes (keys and values) the recent records can take.
    static let maxBytes = commitSpan * (maxRecordBytes + 9)

    /// The environment's main database.
    let main: Database

    /// Where the recent records start: before the first, after every database name.
    private static let firstKey: [UInt8] = [keyPrefix]

    static func key(for commit: Int) -> [UInt8] {
        var key = [UInt8](repeating: keyPrefix, count: 9)
        for position in 1..<9 { key[position] = UInt8(truncatingIfNeeded: UInt64(commit) >> (8 * (8 - position))) }
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
    /// ``commitSpan`` commits old. `commit` is newer than every record of either.
    ///
    /// With `holding`, nothing moves and the record joins the recent ones whatever its length:
    /// for a commit that found no room for the move in a map that may not grow.
    /// Returns whether recent records moved.
    @discardableResult
    func append(
        _ value: [UInt8], commit: Int, log: Database, holding: Bool = false, in transaction: inout WriteTransaction
    ) throws -> Bool {
        let isLong = value.count > Self.maxRecordBytes && !holding
        var moved = false
        if !holding, let oldest = try oldestCommit(in: transaction), isLong || commit - oldest >= Self.commitSpan {
            try moveAll(to: log, in: &transaction)
            moved = true
        }
        if isLong {
            try transaction.put(value, forKey: ChangeRecord.key(for: commit), in: log, options: .append)
        } else {
            try transaction.put(value, forKey: Self.key(for: commit), in: main)
        }
        return moved
    }

    /// Moves every recent record to the end of `log`, in commit order.
    func moveAll(to log: Database, in transaction: inout WriteTransaction) throws {
        var moving: [(key: [UInt8], value: [UInt8])] = []
        try visit(from: 0, in: transaction) { commit, _, value in
            moving.append((ChangeRecord.key(for: commit), Array(value)))
            return true
        }
        guard !moving.isEmpty else { return }
        try transaction.withCursor(on: log) { cursor in
            for (key, value) in moving {
                try value.withUnsafeBytes { value in
                    try key.withUnsafeBytes { key in try cursor.put(value, forKey: key, options: .append) }
                }
            }
        }
        // The recent records are the main database's last keys: each delete leaves the next one first.
        try transaction.withCursor(on: main) { cursor in
            for _ in moving {
                guard try cursor.withSeek(atOrAfter: Self.firstKey, { key, _ in key.first == Self.keyPrefix }) == true
                else { break }
                try cursor.deleteCurrent()
            }
        }
    }
}
