/// Where the fields of one object in record bytes are, found in one pass when a reader is made,
/// so that each field read compares names instead of re-scanning the bytes (objects are read
/// field by field, rarely in stored order). Used by ``RecordFields`` (the record itself) and
/// ``SourceDecoder`` (``RecordDecoder``'s keyed containers).
///
/// It is stored inline — no allocation — and so holds at most ``capacity`` fields (and only
/// short names near the start of the bytes); those after are found by ``RecordScan`` from ``rest``. Making it checks that the declared entries fill the
/// object exactly, each name and value within bounds. Objects that fail that check (damaged, or
/// beyond what the scan handles) get an index that answers ``RecordScan/Lookup/general`` for
/// every name, which sends the reader down the general path that reports the precise error.
struct RecordFieldIndex {
    /// How many fields are indexed at most. The index is copied whenever it is read (Swift
    /// copies a tuple to take its address), so it is kept to 64 bytes.
    static let capacity = 16
    /// The longest name an entry holds; the index stops at a longer name or a name beyond
    /// ``maxNameOffset``, and the fields from there on are scanned.
    static let maxNameLength = 0xFF
    /// The largest name offset an entry holds.
    static let maxNameOffset = 0xFF_FFFF

    /// Per indexed field, `nameOffset << 8 | nameLength`; the value's tag follows the name.
    private var entries:
        (
            UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32,
            UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32
        )
    /// The number of indexed fields, or -1 when the object could not be indexed.
    private var count: Int
    /// The offset of the first field not indexed.
    private var rest: Int
    /// How many fields follow the indexed ones.
    private var remaining: Int
    /// One past the object's last entry.
    private var end: Int

    /// An index that sends every lookup to the general path.
    static let unavailable = RecordFieldIndex()

    private init() {
        entries = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
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

    /// Indexes the `declared` entries starting at `start`, which must end exactly at `end`.
    private init(_ bytes: UnsafeRawBufferPointer, entries start: Int, end: Int, count declared: Int) {
        self.init()
        guard declared >= 0, start >= 0, end <= bytes.count else { return }
        let body = UnsafeRawBufferPointer(rebasing: bytes[..<end])
        var offset = start
        var indexed = 0
        var rest = start
        let complete = withUnsafeMutableBytes(of: &entries) { slots -> Bool in
            for field in 0..<declared {
                let length = RecordScan.varint(body, &offset)
                guard length >= 0, length <= end - offset else { return false }
                let indexes =
                    indexed == field && field < Self.capacity && length <= Self.maxNameLength
                    && offset <= Self.maxNameOffset
                if indexes {
                    slots.storeBytes(of: UInt32(offset) << 8 | UInt32(length), toByteOffset: field * 4, as: UInt32.self)
                    indexed = field + 1
                }
                offset += length
                guard RecordScan.skipValue(body, &offset) else { return false }
                if indexes { rest = offset }
            }
            return offset == end
        }
        guard complete else { return }
        (self.count, self.rest, self.remaining, self.end) = (indexed, rest, declared - indexed, end)
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
    /// was made from.
    @inline(__always)
    func field(_ name: UnsafeRawBufferPointer, in bytes: UnsafeRawBufferPointer) -> RecordScan.Lookup {
        guard isAvailable else { return .general }
        guard name.count <= Self.maxNameLength else {
            return RecordScan.field(name, in: bytes, from: rest, count: remaining, end: end)
        }
        let target = UInt32(name.count)
        let found = withUnsafeBytes(of: entries) { slots -> Int in
            for slot in 0..<count {
                let entry = slots.load(fromByteOffset: slot * 4, as: UInt32.self)
                guard entry & 0xFF == target else { continue }
                let start = Int(truncatingIfNeeded: entry >> 8)
                if UTF8Order.equal(UnsafeRawBufferPointer(rebasing: bytes[start..<(start + name.count)]), name) {
                    return start + name.count
                }
            }
            return -1
        }
        if found >= 0 { return .found(found) }
        if remaining == 0 { return .absent }
        return RecordScan.field(name, in: bytes, from: rest, count: remaining, end: end)
    }
}
