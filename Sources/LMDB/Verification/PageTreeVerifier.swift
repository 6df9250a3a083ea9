/// One structural fault in an LMDB data file: a page LMDB would follow into memory it does not own,
/// or that breaks the tree's shape.
public struct StructureProblem: Sendable, Hashable, CustomStringConvertible {
    /// The named database the damaged page belongs to; `nil` for LMDB's own trees (its catalog of
    /// named databases and its list of free pages).
    public var database: String?
    /// The damaged page.
    public var page: Int
    /// The first key the damaged page may hold, from its parent (`nil` for a root or a page
    /// reached from no key).
    public var key: [UInt8]?
    /// What is wrong.
    public var message: String

    public init(database: String?, page: Int, key: [UInt8]?, message: String) {
        self.database = database
        self.page = page
        self.key = key
        self.message = message
    }

    public var description: String { "\(database ?? "LMDB's own pages"): page \(page): \(message)" }
}

/// Walks every page reachable from one snapshot of an LMDB 0.9 data file, checking each against
/// the layout `mdb.c` writes, before LMDB itself follows any pointer in it: LMDB trusts its pages
/// (a damaged one makes it read outside its map or fail an assertion), so a damaged store is
/// only safe to read once this has found nothing in the trees to be read.
///
/// Pure: it reads pages through `readPage` and never touches LMDB, so a fuzzer can feed it any
/// bytes. Every page is read at most once (a page reached twice is itself damage), and depth is
/// bounded, so any input ends.
package struct PageTreeVerifier {
    /// The bytes of one database record (`MDB_db`): 48 bytes, little-endian.
    package struct DatabaseRecord: Sendable, Hashable {
        package var flags: UInt16
        package var depth: Int
        package var branchPages: Int
        package var leafPages: Int
        package var overflowPages: Int
        package var entries: Int
        /// The root page, `nil` for an empty database.
        package var root: Int?

        package static let byteCount = 48

        package init?(_ bytes: some Collection<UInt8>) {
            let bytes = Array(bytes)
            guard bytes.count == Self.byteCount else { return nil }
            flags = PageTreeVerifier.u16(bytes, 4)
            depth = Int(PageTreeVerifier.u16(bytes, 6))
            branchPages = Int(truncatingIfNeeded: PageTreeVerifier.u64(bytes, 8))
            leafPages = Int(truncatingIfNeeded: PageTreeVerifier.u64(bytes, 16))
            overflowPages = Int(truncatingIfNeeded: PageTreeVerifier.u64(bytes, 24))
            entries = Int(truncatingIfNeeded: PageTreeVerifier.u64(bytes, 32))
            let root = PageTreeVerifier.u64(bytes, 40)
            self.root = root == .max ? nil : Int(truncatingIfNeeded: root)
        }
    }

    /// A meta page (`MDB_meta` after the 16-byte page header): magic, version, address, map size,
    /// the free-page list's and the catalog's database records, the last page, the transaction id.
    package struct MetaPage: Sendable, Hashable {
        package var free: DatabaseRecord
        package var main: DatabaseRecord
        package var lastPage: Int
        package var transactionID: Int

        /// The meta page in `page`, or `nil` when its magic, version or records are not LMDB's.
        package init?(_ page: [UInt8]) {
            let base = PageTreeVerifier.pageHeaderSize
            let records = base + 24
            let size = DatabaseRecord.byteCount
            guard page.count >= records + 2 * size + 16, PageTreeVerifier.u32(page, base) == 0xBEEF_C0DE,
                PageTreeVerifier.u32(page, base + 4) == 1,
                let free = DatabaseRecord(page[records..<(records + size)]),
                let main = DatabaseRecord(page[(records + size)..<(records + 2 * size)])
            else { return nil }
            self.free = free
            self.main = main
            lastPage = Int(truncatingIfNeeded: PageTreeVerifier.u64(page, records + 2 * size))
            transactionID = Int(truncatingIfNeeded: PageTreeVerifier.u64(page, records + 2 * size + 8))
        }
    }

    // The layout of LMDB 0.9 (mdb.c): page header, node header, flags.
    static let pageHeaderSize = 16
    static let nodeHeaderSize = 8
    static let branchFlag: UInt16 = 0x01
    static let leafFlag: UInt16 = 0x02
    static let overflowFlag: UInt16 = 0x04
    static let leaf2Flag: UInt16 = 0x20
    /// Flags LMDB clears before it writes a page, tolerated if found.
    static let transientFlags: UInt16 = 0x10 | 0x8000
    static let bigDataNode: UInt16 = 0x01
    static let subDataNode: UInt16 = 0x02
    static let duplicateDataNode: UInt16 = 0x04
    static let integerKeyDatabase: UInt16 = 0x08
    static let duplicateSortDatabase: UInt16 = 0x04
    static let duplicateFixedDatabase: UInt16 = 0x10
    /// `MDB_MAXKEYSIZE` of Debian's build.
    static let maxKeySize = 511
    /// Deeper than any tree of 2^64 entries: a larger depth is damage.
    static let maxDepth = 64

    let pageSize: Int
    /// The last page of the snapshot: no page above it belongs to it.
    let lastPage: Int
    /// How many pages the file holds.
    let filePages: Int
    /// A page's bytes (`pageSize` of them), or `nil` when it lies past the end of the file.
    let readPage: (Int) -> [UInt8]?
    private var visited = Set<Int>()
    private var problems: [StructureProblem] = []
    /// The named databases the catalog holds, by name.
    private(set) var named: [(name: [UInt8], record: DatabaseRecord)] = []

    package init(pageSize: Int, lastPage: Int, filePages: Int, readPage: @escaping (Int) -> [UInt8]?) {
        self.pageSize = pageSize
        self.lastPage = lastPage
        self.filePages = filePages
        self.readPage = readPage
    }

    /// The problems of the trees of the snapshot whose free-page list and catalog are `free` and
    /// `main`: LMDB's own trees first, then each named database the catalog holds.
    package mutating func verify(free: DatabaseRecord, main: DatabaseRecord) -> [StructureProblem] {
        guard pageSize >= 512, pageSize <= 65_536, lastPage >= 1 else {
            return [StructureProblem(database: nil, page: 0, key: nil, message: "the meta page is damaged")]
        }
        guard lastPage < filePages else {
            return [
                StructureProblem(
                    database: nil, page: lastPage, key: nil,
                    message:
                        "the meta page says the data reaches page \(lastPage), but the file holds \(filePages) pages")
            ]
        }
        verifyTree(free, name: nil, role: .free)
        verifyTree(main, name: nil, role: .catalog)
        for (name, record) in named {
            verifyTree(record, name: String(decoding: name, as: UTF8.self), role: .named)
        }
        return problems
    }

    /// What a tree is to LMDB.
    enum Role {
        /// The list of free pages (integer keys).
        case free
        /// The catalog of named databases: its leaves name each one's record.
        case catalog
        case named
        /// The duplicates of one key of a duplicate-sorted database (no deeper trees in it).
        case duplicates
    }

    /// What one tree's walk counted, to compare with its record.
    private struct Tally {
        var branchPages = 0
        var leafPages = 0
        var overflowPages = 0
        var entries = 0
        var leafDepths = Set<Int>()
    }

    private mutating func verifyTree(_ record: DatabaseRecord, name: String?, role: Role) {
        guard let root = record.root else {
            if record.depth != 0 || record.entries != 0 {
                problem(name, 0, nil, "the database record names no root page but holds \(record.entries) entries")
            }
            return
        }
        guard record.depth >= 1, record.depth <= Self.maxDepth else {
            problem(name, root, nil, "the database record gives a depth of \(record.depth)")
            return
        }
        var tally = Tally()
        let tree = TreeContext(name: name, role: role, record: record)
        let before = problems.count
        visit(root, level: 0, bound: nil, tree, &tally)
        // A tree cut short by damage counts short: its counts say nothing more.
        guard problems.count == before else { return }
        if tally.leafDepths != [record.depth] {
            problem(name, root, nil, "its leaves lie at depths \(tally.leafDepths.sorted()), not \(record.depth)")
        }
        let counted = (tally.branchPages, tally.leafPages, tally.overflowPages)
        let recorded = (record.branchPages, record.leafPages, record.overflowPages)
        if counted != recorded {
            problem(
                name, root, nil,
                "the tree has \(counted.0) branch, \(counted.1) leaf and \(counted.2) overflow pages; its record says "
                    + "\(recorded.0), \(recorded.1) and \(recorded.2)")
        }
        if record.flags & Self.duplicateSortDatabase == 0, tally.entries != record.entries {
            problem(name, root, nil, "the tree holds \(tally.entries) entries; its record says \(record.entries)")
        }
    }

    /// What the walk of one tree needs to know about it.
    private struct TreeContext {
        let name: String?
        let role: Role
        let record: DatabaseRecord
        var integerKeys: Bool { record.flags & PageTreeVerifier.integerKeyDatabase != 0 }
    }

    /// Checks page `number` at `level` of `tree`, whose keys are at least `bound`, and what it leads to.
    private mutating func visit(_ number: Int, level: Int, bound: [UInt8]?, _ tree: TreeContext, _ tally: inout Tally) {
        guard let page = claim(number, tree.name, bound) else { return }
        let flags = Self.u16(page, 10) & ~Self.transientFlags
        let lower = Int(Self.u16(page, 12))
        let upper = Int(Self.u16(page, 14))
        let isLeaf = level == tree.record.depth - 1
        guard flags == (isLeaf ? Self.leafFlag : Self.branchFlag) else {
            let expected = isLeaf ? "a leaf" : "a branch"
            if flags == Self.leafFlag | Self.leaf2Flag, tree.record.flags & Self.duplicateFixedDatabase != 0 { return }
            problem(
                tree.name, number, bound, "it should be \(expected) page at depth \(level + 1) but has flags \(flags)")
            return
        }
        guard lower >= Self.pageHeaderSize, lower % 2 == 0, lower <= upper, upper <= pageSize else {
            problem(tree.name, number, bound, "its free space runs from \(lower) to \(upper), outside the page")
            return
        }
        let count = (lower - Self.pageHeaderSize) / 2
        guard count >= 1 else {
            problem(tree.name, number, bound, "it holds no keys")
            return
        }
        if isLeaf {
            tally.leafPages += 1
            tally.leafDepths.insert(level + 1)
        } else {
            tally.branchPages += 1
        }
        var previous: [UInt8]? = nil
        for index in 0..<count {
            guard let node = node(page, index, upper: upper, tree.name, number, bound) else { return }
            let keyStart = node + Self.nodeHeaderSize
            let key = Array(page[keyStart..<(keyStart + Int(Self.u16(page, node + 6)))])
            // A branch's first key is never compared: LMDB leaves it empty.
            if isLeaf || index > 0 {
                if let previous, !Self.inOrder(previous, key, integer: tree.integerKeys) {
                    problem(tree.name, number, bound, "key \(index) is not above the key before it")
                    return
                }
                if previous == nil, let bound, !Self.inOrder(bound, key, integer: tree.integerKeys, equalAllowed: true)
                {
                    problem(tree.name, number, bound, "its first key is below the key its parent gives it")
                    return
                }
                previous = key
            }
            if isLeaf {
                guard leafNode(page, node, key: key, tree, number, bound, &tally) else { return }
            } else {
                let child =
                    Int(Self.u16(page, node)) | Int(Self.u16(page, node + 2)) << 16
                    | Int(Self.u16(page, node + 4)) << 32
                visit(child, level: level + 1, bound: index == 0 ? bound : key, tree, &tally)
            }
        }
    }

    /// The offset of node `index` of `page`, with its header and key inside the page, or `nil`
    /// after noting why not.
    private mutating func node(
        _ page: [UInt8], _ index: Int, upper: Int, _ name: String?, _ number: Int, _ bound: [UInt8]?
    ) -> Int? {
        let offset = Int(Self.u16(page, Self.pageHeaderSize + 2 * index))
        guard offset >= upper, offset + Self.nodeHeaderSize <= pageSize else {
            problem(name, number, bound, "node \(index) lies at \(offset), outside the page's nodes")
            return nil
        }
        let keySize = Int(Self.u16(page, offset + 6))
        guard keySize <= Self.maxKeySize, offset + Self.nodeHeaderSize + keySize <= pageSize else {
            problem(name, number, bound, "node \(index) has a key of \(keySize) bytes running past the page")
            return nil
        }
        return offset
    }

    /// Checks a leaf node's data (in the page, on overflow pages, or a named database's record);
    /// `false` after noting damage.
    private mutating func leafNode(
        _ page: [UInt8], _ node: Int, key: [UInt8], _ tree: TreeContext, _ number: Int, _ bound: [UInt8]?,
        _ tally: inout Tally
    ) -> Bool {
        let nodeFlags = Self.u16(page, node + 4)
        let dataSize = Int(Self.u16(page, node)) | Int(Self.u16(page, node + 2)) << 16
        let dataStart = node + Self.nodeHeaderSize + key.count
        tally.entries += 1
        guard nodeFlags & ~(Self.bigDataNode | Self.subDataNode | Self.duplicateDataNode) == 0 else {
            problem(tree.name, number, bound, "a node has unknown flags \(nodeFlags)")
            return false
        }
        if nodeFlags & Self.duplicateDataNode != 0 && tree.record.flags & Self.duplicateSortDatabase == 0 {
            problem(tree.name, number, bound, "a node holds duplicates in a database that allows none")
            return false
        }
        if nodeFlags & Self.bigDataNode != 0 {
            guard dataStart + 8 <= pageSize else {
                problem(tree.name, number, bound, "a large value's page number runs past the page")
                return false
            }
            return overflow(Int(truncatingIfNeeded: Self.u64(page, dataStart)), size: dataSize, tree, &tally, key)
        }
        guard dataStart + dataSize <= pageSize else {
            problem(tree.name, number, bound, "a value of \(dataSize) bytes runs past the page")
            return false
        }
        if nodeFlags & Self.subDataNode != 0 {
            guard dataSize == DatabaseRecord.byteCount,
                let record = DatabaseRecord(page[dataStart..<(dataStart + dataSize)])
            else {
                problem(tree.name, number, bound, "a database record of \(dataSize) bytes")
                return false
            }
            if tree.role == .catalog && nodeFlags & Self.duplicateDataNode == 0 {
                named.append((key, record))
            } else if nodeFlags & Self.duplicateDataNode != 0 && tree.role != .duplicates {
                verifyTree(record, name: tree.name, role: .duplicates)
            } else {
                problem(tree.name, number, bound, "a named database's record outside LMDB's catalog")
                return false
            }
        }
        return true
    }

    /// Checks the overflow pages of a large value of `size` bytes starting at page `first`.
    private mutating func overflow(_ first: Int, size: Int, _ tree: TreeContext, _ tally: inout Tally, _ key: [UInt8])
        -> Bool
    {
        guard let page = claim(first, tree.name, key) else { return false }
        let pages = Int(Self.u32(page, 12))
        guard Self.u16(page, 10) & ~Self.transientFlags == Self.overflowFlag, pages >= 1,
            first + pages - 1 <= lastPage, size <= pages * pageSize - Self.pageHeaderSize
        else {
            problem(tree.name, first, key, "the overflow page of a \(size)-byte value is damaged")
            return false
        }
        for next in (first + 1)..<(first + pages) where !visited.insert(next).inserted {
            problem(tree.name, next, key, "a large value's page is reached twice")
            return false
        }
        tally.overflowPages += pages
        return true
    }

    /// Page `number`'s bytes once its number is in range, its header names it, and it has not
    /// been reached before; `nil` after noting why not.
    private mutating func claim(_ number: Int, _ name: String?, _ bound: [UInt8]?) -> [UInt8]? {
        guard number >= 2, number <= lastPage else {
            problem(name, number, bound, "it is referred to, but lies outside the snapshot's pages 2-\(lastPage)")
            return nil
        }
        guard visited.insert(number).inserted else {
            problem(name, number, bound, "it is reached twice")
            return nil
        }
        guard let page = readPage(number), page.count == pageSize else {
            problem(name, number, bound, "it lies past the end of the file")
            return nil
        }
        guard Self.u64(page, 0) == UInt64(number) else {
            problem(name, number, bound, "its header names page \(Self.u64(page, 0))")
            return nil
        }
        return page
    }

    private mutating func problem(_ name: String?, _ page: Int, _ key: [UInt8]?, _ message: String) {
        problems.append(StructureProblem(database: name, page: page, key: key, message: message))
    }

    /// Whether `a` sorts before `b` (or equals it, with `equalAllowed`): bytes in order, or for
    /// integer keys (the free list's transaction ids) by value.
    private static func inOrder(_ a: [UInt8], _ b: [UInt8], integer: Bool, equalAllowed: Bool = false) -> Bool {
        if integer, a.count == 8, b.count == 8 {
            return equalAllowed ? u64(a, 0) <= u64(b, 0) : u64(a, 0) < u64(b, 0)
        }
        if a == b { return equalAllowed }
        return a.lexicographicallyPrecedes(b)
    }

    static func u16(_ bytes: [UInt8], _ offset: Int) -> UInt16 {
        UInt16(bytes[offset]) | UInt16(bytes[offset + 1]) << 8
    }

    static func u32(_ bytes: [UInt8], _ offset: Int) -> UInt32 {
        (0..<4).reduce(0) { $0 | UInt32(bytes[offset + $1]) << (8 * UInt32($1)) }
    }

    static func u64(_ bytes: [UInt8], _ offset: Int) -> UInt64 {
        (0..<8).reduce(0) { $0 | UInt64(bytes[offset + $1]) << (8 * UInt64($1)) }
    }
}
