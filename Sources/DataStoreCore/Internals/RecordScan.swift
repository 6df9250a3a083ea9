/// The fast path for reading single fields of a record (``RecordFields``): a scan that never
/// throws and builds no ``Value``.
///
/// It handles what well-formed records hold and answers ``Lookup/general`` for anything else —
/// damaged or truncated bytes, a field count or length that does not fit the scan's assumptions.
/// The caller then takes the general path (``RecordCodec/field(_:in:)-(_,UnsafeRawBufferPointer)``),
/// which reports the precise ``CodecError``. So this code only has to be *safe* on hostile bytes
/// (every read is bounds-checked first), not to explain them.
///
/// Why not the general path's `ByteReader`: its checks are the same, but each read can throw a
/// typed error carrying a message, and the lookup compares names in order through a closure,
/// several times the instructions per field passed of this scan.
enum RecordScan {
    /// Where a field is, as far as the scan could tell.
    enum Lookup {
        /// The offset of the field's value tag.
        case found(Int)
        /// The record is well formed up to its end and has no such field.
        case absent
        /// The scan met something it does not handle: ask the general path.
        case general
    }

    /// Finds the top-level field whose name is exactly the bytes `name`.
    ///
    /// - Complexity: See ``field(_:in:from:count:)``.
    @inline(__always)
    static func field(_ name: UnsafeRawBufferPointer, in bytes: UnsafeRawBufferPointer) -> Lookup {
        guard let (start, count) = entries(ofRecord: bytes) else { return .general }
        return field(name, in: bytes, from: start, count: count, end: bytes.count)
    }

    /// Where the record's entries start, and how many it declares; `nil` for bytes that do not
    /// begin as a record of this format.
    @inline(__always)
    static func entries(ofRecord bytes: UnsafeRawBufferPointer) -> (start: Int, count: Int)? {
        guard bytes.count >= 2, bytes[0] == RecordCodec.formatVersion else { return nil }
        var offset = 1
        let count = varint(bytes, &offset)
        return count >= 0 ? (offset, count) : nil
    }

    /// Finds the field whose name is exactly the bytes `name` among the `count` entries that
    /// start at `start` and fill the bytes up to `end` (an object's body, or the record's rest).
    ///
    /// Unlike ``RecordCodec/findField(_:_:)`` it does not stop at a name sorting after `name`:
    /// comparing lengths first, then bytes, is cheaper than ordering every name passed, and
    /// records have few fields.
    ///
    /// - Complexity: O(fields before it), each passed in O(1) plus its name when the lengths match.
    static func field(
        _ name: UnsafeRawBufferPointer, in bytes: UnsafeRawBufferPointer, from start: Int, count: Int, end: Int
    ) -> Lookup {
        guard start >= 0, end <= bytes.count else { return .general }
        let entries = UnsafeRawBufferPointer(rebasing: bytes[..<end])
        var offset = start
        let target = name.count
        for _ in 0..<count {
            let length = varint(entries, &offset)
            guard length >= 0, length <= end - offset else { return .general }
            if length == target
                && UTF8Order.equal(UnsafeRawBufferPointer(rebasing: entries[offset..<(offset + length)]), name)
            {
                return .found(offset + length)
            }
            offset += length
            guard skipValue(entries, &offset) else { return .general }
        }
        return offset == end ? .absent : .general
    }

    /// Reads a varint at `offset` and moves past it; -1 if it is not a well-formed one within
    /// the bytes (see docs/encoding.md: minimal, at most 5 bytes, at most 2^32 - 1).
    @inline(__always)
    static func varint(_ bytes: UnsafeRawBufferPointer, _ offset: inout Int) -> Int {
        guard offset < bytes.count else { return -1 }
        let first = bytes[offset]
        offset += 1
        if first < 0x80 { return Int(first) }
        return varintTail(first, bytes, &offset)
    }

    /// The rest of a varint longer than one byte.
    private static func varintTail(_ first: UInt8, _ bytes: UnsafeRawBufferPointer, _ offset: inout Int) -> Int {
        var result = UInt64(first & 0x7F)
        var shift: UInt64 = 7
        while shift < 35, offset < bytes.count {
            let byte = bytes[offset]
            offset += 1
            result |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 {
                return byte != 0 && result <= UInt64(UInt32.max) ? Int(result) : -1
            }
            shift += 7
        }
        return -1
    }

    /// Moves past the tagged value at `offset`; `false` if it does not fit in the bytes or its
    /// tag is reserved. Payloads are not inspected.
    @inline(__always)
    static func skipValue(_ bytes: UnsafeRawBufferPointer, _ offset: inout Int) -> Bool {
        guard offset < bytes.count else { return false }
        let tag = bytes[offset]
        offset += 1
        let size: Int
        switch tag {
        case RecordCodec.Tag.null, RecordCodec.Tag.false, RecordCodec.Tag.true: size = 0
        case RecordCodec.Tag.int8: size = 1
        case RecordCodec.Tag.int16: size = 2
        case RecordCodec.Tag.int32: size = 4
        case RecordCodec.Tag.int64, RecordCodec.Tag.double: size = 8
        case RecordCodec.Tag.string, RecordCodec.Tag.bytes, RecordCodec.Tag.array, RecordCodec.Tag.object:
            size = varint(bytes, &offset)
        default: return false
        }
        guard size >= 0, size <= bytes.count - offset else { return false }
        offset += size
        return true
    }

    // MARK: Values
    //
    // Each reads the value at a tag offset when it is of the kind asked for and well formed, and
    // returns `nil` otherwise (null, another type, damage): the general path then decides.

    /// The length-prefixed payload after a `string` or `bytes` tag at `offset`.
    @inline(__always)
    static func payload(_ bytes: UnsafeRawBufferPointer, at offset: Int, tag: UInt8) -> UnsafeRawBufferPointer? {
        guard offset >= 0, offset < bytes.count, let base = bytes.baseAddress,
            base.load(fromByteOffset: offset, as: UInt8.self) == tag
        else { return nil }
        var start = offset &+ 1
        let length = varint(bytes, &start)
        guard length >= 0, length <= bytes.count &- start else { return nil }
        return UnsafeRawBufferPointer(start: base + start, count: length)
    }

    /// The string at `offset`, if it is one of valid UTF-8.
    @inline(__always)
    static func string(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> String? {
        guard let utf8 = payload(bytes, at: offset, tag: RecordCodec.Tag.string) else { return nil }
        return UTF8Validation.string(utf8)
    }

    /// The double at `offset`, if the value is one.
    @inline(__always)
    static func double(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> Double? {
        guard offset >= 0, offset + 9 <= bytes.count, bytes[offset] == RecordCodec.Tag.double else { return nil }
        return Double(
            bitPattern: UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset + 1, as: UInt64.self)))
    }

    /// The integer at `offset`, if the value is one written in its smallest width.
    @inline(__always)
    static func int(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> Int64? {
        guard offset >= 0, offset < bytes.count else { return nil }
        let payload = offset + 1, available = bytes.count - payload
        switch bytes[offset] {
        case RecordCodec.Tag.int8 where available >= 1:
            return Int64(Int8(bitPattern: bytes[payload]))
        case RecordCodec.Tag.int16 where available >= 2:
            let number = Int16(littleEndian: bytes.loadUnaligned(fromByteOffset: payload, as: Int16.self))
            return Int8(exactly: number) == nil ? Int64(number) : nil
        case RecordCodec.Tag.int32 where available >= 4:
            let number = Int32(littleEndian: bytes.loadUnaligned(fromByteOffset: payload, as: Int32.self))
            return Int16(exactly: number) == nil ? Int64(number) : nil
        case RecordCodec.Tag.int64 where available >= 8:
            let number = Int64(littleEndian: bytes.loadUnaligned(fromByteOffset: payload, as: Int64.self))
            return Int32(exactly: number) == nil ? number : nil
        default:
            return nil
        }
    }

    /// The Boolean at `offset`, if the value is one.
    @inline(__always)
    static func bool(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> Bool? {
        guard offset >= 0, offset < bytes.count else { return nil }
        switch bytes[offset] {
        case RecordCodec.Tag.true: return true
        case RecordCodec.Tag.false: return false
        default: return nil
        }
    }
}
