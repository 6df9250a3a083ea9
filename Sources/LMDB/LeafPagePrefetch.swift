internal import CLMDB

#if canImport(Glibc)
import Glibc
#endif

/// Loads each leaf page a cursor walk enters into the CPU's cache at once.
///
/// A walk in key order reads every entry of a leaf page, but the entries lie in insertion order
/// within the page and the pages in allocation order within the file: the hardware's prefetcher,
/// which follows strides, cannot guess the next line, so without this each entry waits for memory
/// in turn. Asking for the whole page when the walk enters it lets those loads overlap.
public struct LeafPagePrefetch {
    /// The size of the pages LMDB makes: the operating system's, which a new environment takes.
    private static let pageSize = UInt(sysconf(Int32(_SC_PAGESIZE)))

    private let pageMask = ~(Self.pageSize &- 1)
    private var page: UInt = 0

    /// A prefetch that has seen no page yet.
    public init() {}

    /// Notes the entry whose key LMDB lent at `key` (a key lies in its leaf page; a value may lie
    /// in overflow pages), and prefetches that page if the walk has just moved into it.
    ///
    /// The page of the first entry is not prefetched: a seek has already brought in the part the
    /// walk starts at, and a point query that reads an entry or two would load the rest for nothing.
    public mutating func enter(_ key: UnsafeRawBufferPointer) {
        let address = UInt(bitPattern: key.baseAddress) & pageMask
        guard address != page else { return }
        defer { page = address }
        guard page != 0 else { return }
        dsk_prefetch_page(key.baseAddress, Self.pageSize)
    }
}
