internal import CLMDB

extension ReadableTransaction where Self: ~Copyable {
    /// Lends each entry of `database` to `body` in key order — from the first key at or after `start`,
    /// or from the first key when `start` is `nil` — until `body` returns `false` or the entries end.
    ///
    /// The one cursor loop the layers above share: keys and values are borrowed, valid only inside
    /// `body`, so a walk copies only what it keeps. It loads each leaf page it enters at once
    /// (`LeafPagePrefetch`).
    /// - Complexity: O(log n) to position, then O(1) per entry.
    public func walk(
        _ database: Database, from start: [UInt8]? = nil,
        _ body: (_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) throws -> Bool
    ) throws {
        // Kept in a captured variable, checked for exclusive access on every entry: held behind a
        // pointer, or passed to inlined cursor steps, it took fewer instructions but scanned slower.
        var prefetch = LeafPagePrefetch(for: self)
        func prefetching(_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) throws -> Bool {
            prefetch.enter(key)
            return try body(key, value)
        }
        try withCursor(on: database) { cursor in
            var more =
                if let start, !start.isEmpty {
                    try cursor.withSeek(atOrAfter: start, prefetching)
                } else {
                    try cursor.withMove(.first, prefetching)
                }
            while more == true { more = try cursor.withMove(.next, prefetching) }
        }
    }
}

extension Cursor {
    /// Moves the cursor to the first key at or after `start` (the first key when `start` is empty)
    /// and returns that entry, lent from the map until the transaction ends or writes (unlike the
    /// public moves, which lend to a closure or copy); `nil` when there is none. For loops that
    /// call their own code on each entry, such as the store's index windows.
    package func step(
        from start: [UInt8], prefetching prefetch: inout LeafPagePrefetch
    ) throws -> (key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer)? {
        var key = MDB_val()
        var value = MDB_val()
        let code: Int32
        if start.isEmpty {
            code = mdb_cursor_get(pointer, &key, &value, MDB_FIRST)
        } else {
            try validateKey(start.count, database, maxKeySize: maxKeySize)
            code = start.withUnsafeBytes { bytes in
                key = MDB_val(mv_size: bytes.count, mv_data: UnsafeMutableRawPointer(mutating: bytes.baseAddress))
                return mdb_cursor_get(pointer, &key, &value, MDB_SET_RANGE)
            }
        }
        return try landed(code, key, value, &prefetch)
    }

    /// Moves the cursor by `move` and returns the entry it lands on, lent as
    /// ``step(from:prefetching:)`` lends; `nil` when there is none.
    package func step(
        _ move: Move, prefetching prefetch: inout LeafPagePrefetch
    ) throws -> (key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer)? {
        var key = MDB_val()
        var value = MDB_val()
        let code = mdb_cursor_get(pointer, &key, &value, move.operation)
        return try landed(code, key, value, &prefetch)
    }

    /// The entry a move landed on, its leaf page noted in `prefetch`.
    @inline(__always)
    private func landed(
        _ code: Int32, _ key: MDB_val, _ value: MDB_val, _ prefetch: inout LeafPagePrefetch
    ) throws -> (key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer)? {
        if code == MDB_NOTFOUND { return nil }
        try check(code, "moving a cursor on \(database.name ?? "(main)")")
        prefetch.enter(key.bytes)
        return (key.bytes, value.bytes)
    }
}
