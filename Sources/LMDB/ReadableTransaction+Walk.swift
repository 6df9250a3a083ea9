internal import CLMDB

#if canImport(Glibc)
import Glibc
#endif

/// The size of the pages LMDB makes: the operating system's, which a new environment takes.
private let systemPageSize = UInt(sysconf(Int32(_SC_PAGESIZE)))

extension ReadableTransaction where Self: ~Copyable {
    /// Lends each entry of `database` to `body` in key order — from the first key at or after `start`,
    /// or from the first key when `start` is `nil` — until `body` returns `false` or the entries end.
    ///
    /// The one cursor loop the layers above share: keys and values are borrowed, valid only inside
    /// `body`, so a walk copies only what it keeps. Each time the walk enters a leaf page it asks the
    /// CPU to load the whole page at once: a walk reads every entry there, but in an order the
    /// hardware's prefetcher cannot follow, so each entry would otherwise wait for memory in turn.
    /// - Complexity: O(log n) to position, then O(1) per entry.
    public func walk(
        _ database: Database, from start: [UInt8]? = nil,
        _ body: (_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) throws -> Bool
    ) throws {
        let pageMask = ~(systemPageSize &- 1)
        var page: UInt = 0
        // A key lies in its leaf page's node (a value may lie in overflow pages).
        func prefetching(_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) throws -> Bool {
            let address = UInt(bitPattern: key.baseAddress) & pageMask
            if address != page {
                page = address
                dsk_prefetch_page(key.baseAddress, systemPageSize)
            }
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
