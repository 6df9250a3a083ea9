import Glibc

/// Index entries (key and value bytes) packed into one byte arena, with a slot per entry: the
/// unit an index build sorts, spills and hands to the writer, costing no allocation per entry.
struct EntryRun: Sendable {
    /// Where an entry's bytes lie in the arena (key, then value), and its key's first 8 bytes
    /// (big-endian, zero-padded) to settle most comparisons without reading the arena.
    struct Slot: Sendable {
        var offset: Int
        var keyCount: UInt32
        var valueCount: UInt32
        var prefix: UInt64
    }

    private(set) var bytes: [UInt8] = []
    private(set) var slots: [Slot] = []

    var count: Int { slots.count }
    var isEmpty: Bool { slots.isEmpty }
    /// The memory the run holds: its arena and its slots.
    var byteCount: Int { bytes.count + slots.count * MemoryLayout<Slot>.stride }

    /// The bytes the entry at `position` holds: its key, its value and its slot.
    func entryBytes(at position: Int) -> Int {
        Int(slots[position].keyCount) + Int(slots[position].valueCount) + MemoryLayout<Slot>.stride
    }

    /// Adds an entry after the others.
    mutating func append(key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) {
        var prefix: UInt64 = 0
        for position in 0..<8 { prefix = prefix << 8 | UInt64(position < key.count ? key[position] : 0) }
        slots.append(
            Slot(offset: bytes.count, keyCount: UInt32(key.count), valueCount: UInt32(value.count), prefix: prefix))
        bytes.append(contentsOf: key)
        bytes.append(contentsOf: value)
    }

    /// Adds an entry after the others.
    mutating func append(key: [UInt8], value: [UInt8]) {
        key.withUnsafeBytes { key in value.withUnsafeBytes { append(key: key, value: $0) } }
    }

    /// Puts the entries in key order as LMDB orders keys (`memcmp`, then the shorter first).
    /// - Complexity: O(n log n) comparisons.
    mutating func sort() {
        let arena = bytes
        arena.withUnsafeBytes { arena in
            slots.sort { Self.precedes($0, $1, in: arena) }
        }
    }

    /// Whether the key of `a` sorts before the key of `b`.
    private static func precedes(_ a: Slot, _ b: Slot, in arena: UnsafeRawBufferPointer) -> Bool {
        if a.prefix != b.prefix { return a.prefix < b.prefix }
        let common = Int(min(a.keyCount, b.keyCount))
        let order =
            common <= 8 ? 0 : memcmp(arena.baseAddress! + a.offset + 8, arena.baseAddress! + b.offset + 8, common - 8)
        return order == 0 ? a.keyCount < b.keyCount : order < 0
    }

    /// Lends the key and value of the entry at `position` to `body`.
    func withEntry<R>(
        at position: Int, _ body: (_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) throws -> R
    ) rethrows -> R {
        let slot = slots[position]
        return try bytes.withUnsafeBytes { arena in
            let key = UnsafeRawBufferPointer(rebasing: arena[slot.offset..<(slot.offset + Int(slot.keyCount))])
            let valueStart = slot.offset + Int(slot.keyCount)
            return try body(
                key, UnsafeRawBufferPointer(rebasing: arena[valueStart..<(valueStart + Int(slot.valueCount))]))
        }
    }

    /// Lends every entry in `range`, in order, to `body`, with the arena read once.
    func forEach(
        in range: Range<Int>, _ body: (_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) throws -> Void
    ) rethrows {
        try bytes.withUnsafeBytes { arena in
            for position in range {
                let slot = slots[position]
                let valueStart = slot.offset + Int(slot.keyCount)
                try body(
                    UnsafeRawBufferPointer(rebasing: arena[slot.offset..<valueStart]),
                    UnsafeRawBufferPointer(rebasing: arena[valueStart..<(valueStart + Int(slot.valueCount))]))
            }
        }
    }

    /// Whether the key of the entry at `a` sorts before (`< 0`), with (`0`) or after (`> 0`) the
    /// key of `b`'s entry at `other`.
    func compareKey(at position: Int, with other: EntryRun, at otherPosition: Int) -> Int {
        let (a, b) = (slots[position], other.slots[otherPosition])
        if a.prefix != b.prefix { return a.prefix < b.prefix ? -1 : 1 }
        return bytes.withUnsafeBytes { mine in
            other.bytes.withUnsafeBytes { theirs in
                let common = Int(min(a.keyCount, b.keyCount))
                let order =
                    common == 0 ? 0 : memcmp(mine.baseAddress! + a.offset, theirs.baseAddress! + b.offset, common)
                if order != 0 { return order < 0 ? -1 : 1 }
                return a.keyCount == b.keyCount ? 0 : (a.keyCount < b.keyCount ? -1 : 1)
            }
        }
    }
}
