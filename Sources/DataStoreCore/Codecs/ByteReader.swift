/// A bounds-checked cursor over borrowed bytes.
///
/// Modelled on swift-nio's `ByteBuffer`: `read…` methods consume bytes and move the cursor,
/// `get…(at:)` methods look without moving. Every method checks the remaining length *before*
/// touching memory or allocating, so hostile input produces a ``CodecError`` instead of an
/// over-read or an unbounded allocation.
struct ByteReader {
    /// The bytes being read; never written.
    let bytes: UnsafeRawBufferPointer
    /// The offset of the next byte to read.
    var offset: Int
    /// One past the last byte this reader may read (a nested body's end, or the buffer's end).
    let end: Int

    /// Creates a reader over `bytes[offset..<end]`.
    init(_ bytes: UnsafeRawBufferPointer, offset: Int = 0, end: Int? = nil) {
        self.bytes = bytes
        self.offset = offset
        self.end = end ?? bytes.count
    }

    /// The number of bytes left before ``end``.
    var remaining: Int { end - offset }

    /// Whether every byte up to ``end`` has been read.
    var isAtEnd: Bool { offset >= end }

    /// Throws `.truncated` unless `count` more bytes are available.
    @inline(__always)
    func require(_ count: Int, _ what: @autoclosure () -> String) throws(CodecError) {
        guard count >= 0, count <= end - offset else {
            throw CodecError(.truncated, "\(what()) needs \(count) bytes, \(end - offset) remain", offset: offset)
        }
    }

    /// Returns the byte at `index` without moving, or `nil` past ``end``.
    @inline(__always)
    func getUInt8(at index: Int) -> UInt8? {
        index >= 0 && index < end ? bytes[index] : nil
    }

    /// Reads one byte.
    @inline(__always)
    mutating func readUInt8(_ what: @autoclosure () -> String = "a byte") throws(CodecError) -> UInt8 {
        guard offset < end else {
            throw CodecError(.truncated, "\(what()) is missing", offset: offset)
        }
        defer { offset += 1 }
        return bytes[offset]
    }

    /// Reads a little-endian fixed-width integer.
    @inline(__always)
    mutating func readLittleEndian<T: FixedWidthInteger>(_: T.Type) throws(CodecError) -> T {
        try require(MemoryLayout<T>.size, "a \(MemoryLayout<T>.size)-byte integer")
        defer { offset += MemoryLayout<T>.size }
        return T(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: T.self))
    }

    /// Reads a big-endian fixed-width integer.
    @inline(__always)
    mutating func readBigEndian<T: FixedWidthInteger>(_: T.Type) throws(CodecError) -> T {
        try require(MemoryLayout<T>.size, "a \(MemoryLayout<T>.size)-byte integer")
        defer { offset += MemoryLayout<T>.size }
        return T(bigEndian: bytes.loadUnaligned(fromByteOffset: offset, as: T.self))
    }

    /// Reads a minimal unsigned LEB128 varint of at most 5 bytes and 32 bits (see docs/encoding.md).
    @inline(__always)
    mutating func readVarint() throws(CodecError) -> Int {
        let first = try readUInt8("a length")
        if first < 0x80 { return Int(first) } // the common case: one byte
        return try readVarintTail(first)
    }

    private mutating func readVarintTail(_ first: UInt8) throws(CodecError) -> Int {
        let start = offset - 1
        var result = UInt64(first & 0x7F)
        var shift: UInt64 = 7
        while true {
            let byte = try readUInt8("a length")
            result |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 {
                guard byte != 0 else {
                    throw CodecError(.corrupt, "non-minimal varint", offset: start)
                }
                guard result <= UInt64(UInt32.max) else {
                    throw CodecError(.corrupt, "varint \(result) exceeds 2^32 - 1", offset: start)
                }
                return Int(result)
            }
            shift += 7
            guard shift < 35 else {
                throw CodecError(.corrupt, "varint longer than 5 bytes", offset: start)
            }
        }
    }

    /// Reads `count` bytes as a buffer borrowing the same memory.
    @inline(__always)
    mutating func readBytes(_ count: Int, _ what: @autoclosure () -> String) throws(CodecError)
        -> UnsafeRawBufferPointer
    {
        try require(count, what())
        defer { offset += count }
        return UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + count)])
    }

    /// Moves past `count` bytes.
    @inline(__always)
    mutating func skip(_ count: Int, _ what: @autoclosure () -> String) throws(CodecError) {
        try require(count, what())
        offset += count
    }
}

extension Array where Element == UInt8 {
    /// Appends `value` as a minimal unsigned LEB128 varint.
    @inline(__always)
    mutating func appendVarint(_ value: Int) {
        precondition(value >= 0 && value <= Int(UInt32.max), "length \(value) does not fit the format's 32-bit lengths")
        var rest = UInt32(truncatingIfNeeded: value)
        while rest >= 0x80 {
            append(UInt8(truncatingIfNeeded: rest) | 0x80)
            rest >>= 7
        }
        append(UInt8(truncatingIfNeeded: rest))
    }

    /// Appends the bytes of `value` in little-endian order.
    @inline(__always)
    mutating func appendLittleEndian<T: FixedWidthInteger>(_ value: T) {
        Swift.withUnsafeBytes(of: value.littleEndian) { append(contentsOf: $0) }
    }

    /// Appends the bytes of `value` in big-endian order.
    @inline(__always)
    mutating func appendBigEndian<T: FixedWidthInteger>(_ value: T) {
        Swift.withUnsafeBytes(of: value.bigEndian) { append(contentsOf: $0) }
    }
}
