import DataStoreCore
import DataStoreEngine
import LMDB

/// Walking a window's entries with an LMDB cursor.
extension IndexWindow {
    /// Calls `body` with the record key of each entry inside the window, in scan order, until it
    /// returns `false`.
    func visit(
        _ database: Database,
        in transaction: borrowing some ReadableTransaction & ~Copyable,
        _ body: (UnsafeRawBufferPointer) throws -> Bool
    ) throws {
        try visitEntries(database, in: transaction) { key, _ in
            guard let idKey = StorageKeys.idKey(inIndexKey: key) else { return true }
            return try body(idKey)
        }
    }

    /// Calls `body` with each key and value inside the window, in scan order, until it returns
    /// `false`.
    func visitEntries(
        _ database: Database,
        in transaction: borrowing some ReadableTransaction & ~Copyable,
        _ body: (_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) throws -> Bool
    ) throws {
        var prefetch = LeafPagePrefetch(for: transaction)
        try transaction.withCursor(on: database) { cursor in
            // The cursor's steps lend each entry here, so that `body` is called from this loop.
            var entry =
                backward
                ? try positionAtEnd(cursor, &prefetch) : try cursor.step(from: start, prefetching: &prefetch)
            while let (key, value) = entry {
                if backward ? isBeforeStart(key) : isAfterEnd(key) { return }
                // An excluded bound is passed over.
                if !(backward ? isAfterEnd(key) : isBeforeStart(key)) {
                    guard try body(key, value) else { return }
                }
                entry = try cursor.step(backward ? .previous : .next, prefetching: &prefetch)
            }
        }
    }

    /// Moves to the last key not after the window's end and returns its entry.
    private func positionAtEnd(_ cursor: borrowing Cursor, _ prefetch: inout LeafPagePrefetch) throws -> (
        key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer
    )? {
        guard let end else { return try cursor.step(.last, prefetching: &prefetch) }
        // The first key past the window's end: past every key that starts with `end` when inclusive.
        if let beyond = endInclusive ? Self.successor(of: end) : end, !beyond.isEmpty,
            try cursor.step(from: beyond, prefetching: &prefetch) != nil
        {
            return try cursor.step(.previous, prefetching: &prefetch)
        }
        return try cursor.step(.last, prefetching: &prefetch)
    }
}
