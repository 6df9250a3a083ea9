/// Where the first fields of a record are, found in one pass when a ``RecordFields`` is made, so
/// that each accessor compares names instead of re-scanning the record (a `RecordDecodable`
/// reads every field, rarely in stored order).
///
/// It lives inline in ``RecordFields`` — no allocation — and so holds at most ``capacity``
/// fields; the fields after those are found by ``RecordScan`` from ``rest``. A record the scan
/// cannot index (damaged, or not what it handles) gets an index that answers
/// ``RecordScan/Lookup/general`` for every name, sending each accessor down the general path
/// that reports the precise error.
struct RecordFieldIndex {
    /// How many fields are indexed: 16 × 8 bytes keeps ``RecordFields`` within a few cache lines.
    static let capacity = 16

    /// Per indexed field, `nameOffset << 32 | nameLength`; the value's tag follows the name.
    private var entries: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64,
                          UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64)
    /// The number of indexed fields, or -1 when the record could not be indexed.
    private let count: Int
    /// The offset of the first field not indexed (the record's end when every field is).
    private let rest: Int
    /// How many fields the record declares after the indexed ones.
    private let remaining: Int

    /// Indexes the record in `bytes`.
    init(_ bytes: UnsafeRawBufferPointer) {
        entries = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var offset = 1
        var declared = -1
        if bytes.count >= 2, bytes[0] == RecordCodec.formatVersion, bytes.count <= Int(UInt32.max) {
            declared = RecordScan.varint(bytes, &offset)
        }
        guard declared >= 0 else {
            (count, rest, remaining) = (-1, 0, 0)
            return
        }
        var indexed = 0
        let complete = withUnsafeMutableBytes(of: &entries) { slots -> Bool in
            while indexed < Swift.min(declared, Self.capacity) {
                let length = RecordScan.varint(bytes, &offset)
                guard length >= 0, length <= bytes.count - offset else { return false }
                slots.storeBytes(of: UInt64(offset) << 32 | UInt64(length), toByteOffset: indexed * 8, as: UInt64.self)
                offset += length
                guard RecordScan.skipValue(bytes, &offset) else { return false }
                indexed += 1
            }
            return true
        }
        guard complete else {
            (count, rest, remaining) = (-1, 0, 0)
            return
        }
        (count, rest, remaining) = (indexed, offset, declared - indexed)
    }

    /// Finds the field whose name is exactly the bytes `name` in the record `bytes` (the same
    /// bytes the index was made from).
    @inline(__always)
    func field(_ name: UnsafeRawBufferPointer, in bytes: UnsafeRawBufferPointer) -> RecordScan.Lookup {
        guard count >= 0 else { return .general }
        let target = UInt64(name.count)
        let found = withUnsafeBytes(of: entries) { slots -> Int in
            for slot in 0..<count {
                let entry = slots.load(fromByteOffset: slot * 8, as: UInt64.self)
                guard entry & 0xFFFF_FFFF == target else { continue }
                let start = Int(truncatingIfNeeded: entry >> 32)
                if UTF8Validation.equal(UnsafeRawBufferPointer(rebasing: bytes[start..<(start + name.count)]), name) {
                    return start + name.count
                }
            }
            return -1
        }
        if found >= 0 { return .found(found) }
        return RecordScan.field(name, in: bytes, from: rest, count: remaining)
    }
}
