internal import CLMDB

/// Loads each leaf page a cursor walk moves into into the CPU's caches at once.
///
/// A walk in key order reads every entry of a leaf page, but the entries lie in insertion order
/// within the page and the pages in allocation order within the file: the hardware's prefetcher,
/// which follows strides, cannot guess the next line, so without this each entry waits for memory
/// in turn. Asking for the whole page when the walk enters it lets those loads overlap. A value in
/// overflow pages (over about half a page) is not prefetched, and in a write transaction a page
/// the transaction changed is a heap copy, which the page mask only roughly covers: either way a
/// prefetch only costs time, it never faults.
package struct LeafPagePrefetch {
    /// The environment's page size, or 0 (prefetching off: every address then masks to 0).
    private let pageSize: UInt
    private var page: UInt = 0

    /// A prefetch for walks in `transaction`, which has seen no page yet.
    package init(for transaction: borrowing some ReadableTransaction & ~Copyable) {
        // A power of two, as LMDB's page sizes are; anything else turns prefetching off.
        let size = UInt(transaction.transactionHandle.pageSize)
        pageSize = size >= 256 && size & (size &- 1) == 0 ? size : 0
    }

    /// Notes the entry whose key LMDB lent at `key` (a key lies in its leaf page; a value may lie
    /// in overflow pages), and prefetches that page if the walk has just moved into it.
    ///
    /// The page of the first entry is not prefetched: a seek has already brought in the part the
    /// walk starts at, and a point query that reads an entry or two would load the rest for nothing.
    package mutating func enter(_ key: UnsafeRawBufferPointer) {
        let address = UInt(bitPattern: key.baseAddress) & ~(pageSize &- 1)
        guard address != page else { return }
        defer { page = address }
        guard page != 0 else { return }
        dsk_prefetch_page(UnsafeRawPointer(bitPattern: address), Int(pageSize))
    }
}
