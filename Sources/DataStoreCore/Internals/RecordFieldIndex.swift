/// Where the fields of one object in record bytes are, found in one pass when a reader is made,
/// so that each field read compares names instead of re-scanning the bytes (objects are read
/// field by field, rarely in stored order). Used by ``RecordFields`` (the record itself) and
/// ``SourceDecoder`` (``RecordDecoder``'s keyed containers).
///
/// It is stored inline — no allocation — and so holds at most ``capacity`` fields (and only
/// short names near the start of the bytes); those after are found by ``RecordScan`` from ``rest``.
/// Making it checks that the declared entries fill the object exactly, each name and value within bounds. Objects that fail that check (damaged, or
/// beyond what the scan handles) get an index that answers ``RecordScan/Lookup/general`` for
/// every name, which sends the reader down the general path that reports the precise error.
struct RecordFieldIndex: ~Copyable {
    /// How many fields are indexed at most: the index lives inline in its reader, so it is kept
    /// to 64 bytes of entries.
    static let capacity = 16
    /// The longest name an entry holds; the index stops at a longer name or a name beyond
    /// ``maxNameOffset``, and the fields from there on are scanned.
    static let maxNameLength = 0xFF
    /// The largest name offset an entry holds.
    static let maxNameOffset = 0xFF_FFFF

    /// Per indexed field, `nameOffset << 8 | nameLength`; the value's tag follows the name.
    /// The index is not copyable, so that its readers borrow it where it is: a copyable one
    /// was copied whole for every lookup.
    private var entries: InlineArray<16, UInt32>
    /// The number of indexed fields, or -1 when the object could not be indexed.
    private var count: Int
    /// The offset of the first field not indexed.
    private var rest: Int
    /// How many fields follow the indexed ones.
    private var remaining: Int
    /// One past the object's last entry.
    private var end: Int

    /// An index that sends every lookup to the general path.
    static func unavailable() -> RecordFieldIndex { RecordFieldIndex() }

    private init() {
        entries = InlineArray(repeating: 0)
        (count, rest, remaining, end) = (-1, 0, 0, 0)
    }

    /// Whether lookups can be answered here (otherwise they all answer `.general`).
    var isAvailable: Bool { count >= 0 }

    /// Indexes the fields of the record in `bytes`.
    init(record bytes: UnsafeRawBufferPointer) {
        guard let (start, declared) = RecordScan.entries(ofRecord: bytes) else {
            self.init()
            return
        }
        self.init(bytes, entries: start, end: bytes.count, count: declared)
    }

    /// Indexes the object whose value tag is at `position` in `bytes`.
    init(object bytes: UnsafeRawBufferPointer, at position: Int) {
        guard position >= 0, position < bytes.count, bytes[position] == RecordCodec.Tag.object else {
            self.init()
            return
        }
        var offset = position + 1
        let length = RecordScan.varint(bytes, &offset)
        guard length >= 0, length <= bytes.count - offset else {
            self.init()
            return
        }
        let end = offset + length
        let declared = RecordScan.varint(UnsafeRawBufferPointer(rebasing: bytes[..<end]), &offset)
        self.init(bytes, entries: offset, end: end, count: declared)
    }

    /// Indexes the `declared` entries starting at `start`, which must end exactly at `end`:
    /// the first up to ``capacity`` with short names near the start go into ``entries``, the
    /// rest are only checked.
    private init(_ bytes: UnsafeRawBufferPointer, entries start: Int, end: Int, count declared: Int) {
        self.init()
        guard declared >= 0, start >= 0, start <= end, end <= bytes.count, let base = bytes.baseAddress else { return }
        var offset = start
        var indexed = 0
        let indexable = Swift.min(declared, Self.capacity)
        while indexed < indexable {
            let entry = offset
            guard let length = Self.length(base, &offset, end: end) else { return }
            guard length <= Self.maxNameLength, offset <= Self.maxNameOffset else {
                offset = entry
                break
            }
            entries[indexed] = UInt32(truncatingIfNeeded: offset) << 8 | UInt32(truncatingIfNeeded: length)
            offset &+= length
            guard Self.skipValue(base, &offset, end: end) else { return }
            indexed &+= 1
        }
        let rest = offset
        for _ in indexed..<declared {
            guard let length = Self.length(base, &offset, end: end) else { return }
            offset &+= length
            guard Self.skipValue(base, &offset, end: end) else { return }
        }
        guard offset == end else { return }
        (self.count, self.rest, self.remaining, self.end) = (indexed, rest, declared - indexed, end)
    }

    /// Reads the varint length at `offset` (see ``RecordScan/varint(_:_:)``) and moves past it;
    /// `nil` unless that many bytes follow before `end`.
    @inline(__always)
    private static func length(_ base: UnsafeRawPointer, _ offset: inout Int, end: Int) -> Int? {
        guard offset < end else { return nil }
        let first = base.load(fromByteOffset: offset, as: UInt8.self)
        let length: Int
        if first < 0x80 {
            length = Int(truncatingIfNeeded: first)
            offset &+= 1
        } else {
            length = RecordScan.varint(UnsafeRawBufferPointer(start: base, count: end), &offset)
            guard length >= 0 else { return nil }
        }
        return length <= end &- offset ? length : nil
    }

    /// Per value tag 0…15, four bits: the payload's fixed size, `0xF` for a varint-prefixed
    /// payload, `0xE` for a reserved tag (docs/encoding.md).
    private static let payloadSizes: UInt64 = 0xEEEF_FFF8_8421_000E

    /// Moves past the tagged value at `offset`, as ``RecordScan/skipValue(_:_:)`` does within
    /// `end`, with the tag's size looked up instead of switched on.
    @inline(__always)
    private static func skipValue(_ base: UnsafeRawPointer, _ offset: inout Int, end: Int) -> Bool {
        guard offset < end else { return false }
        let tag = base.load(fromByteOffset: offset, as: UInt8.self)
        offset &+= 1
        guard tag < 16 else { return false }
        let size = Int(truncatingIfNeeded: (payloadSizes &>> (UInt64(tag) &* 4)) & 0xF)
        if size == 0xF {
            guard let length = Self.length(base, &offset, end: end) else { return false }
            offset &+= length
            return true
        }
        guard size != 0xE, size <= end &- offset else { return false }
        offset &+= size
        return true
    }

    /// Finds field `name` (matched by its exact UTF-8 bytes) in `bytes`, the bytes the index
    /// was made from.
    @inline(__always)
    func field(_ name: String, in bytes: UnsafeRawBufferPointer) -> RecordScan.Lookup {
        guard isAvailable else { return .general }
        return name.utf8.withContiguousStorageIfAvailable { utf8 in
            field(UnsafeRawBufferPointer(utf8), in: bytes)
        } ?? .general
    }

    /// Finds the field whose name is exactly the bytes `name` in `bytes`, the bytes the index
    /// was made from: entries of another length are passed by one integer comparison, and the
    /// names of the same length compared a word at a time.
    @inline(__always)
    func field(_ name: UnsafeRawBufferPointer, in bytes: UnsafeRawBufferPointer) -> RecordScan.Lookup {
        guard isAvailable else { return .general }
        let length = name.count
        guard length <= Self.maxNameLength else {
            return RecordScan.field(name, in: bytes, from: rest, count: remaining, end: end)
        }
        let target = UInt32(truncatingIfNeeded: length)
        let found = withUnsafePointer(to: entries) { table -> Int in
            let slots = UnsafeRawPointer(table)
            if length > 0, let base = bytes.baseAddress, let wanted = name.baseAddress {
                for slot in 0..<count {
                    let entry = slots.load(fromByteOffset: slot &* 4, as: UInt32.self)
                    guard entry & 0xFF == target else { continue }
                    // Indexing checked that the name lies within the bytes.
                    let start = Int(truncatingIfNeeded: entry >> 8)
                    if FieldName.equal(base + start, wanted, count: length) { return start + length }
                }
            } else {
                for slot in 0..<count {
                    let entry = slots.load(fromByteOffset: slot &* 4, as: UInt32.self)
                    if entry & 0xFF == target { return Int(truncatingIfNeeded: entry >> 8) }
                }
            }
            return -1
        }
        if found >= 0 { return .found(found) }
        if remaining == 0 { return .absent }
        return RecordScan.field(name, in: bytes, from: rest, count: remaining, end: end)
    }
}
