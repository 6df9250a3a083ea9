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
