/// Strict UTF-8 validation (Unicode Table 3-7: no overlongs, no surrogates, nothing above U+10FFFF)
/// in the same pass that builds the `String`.
///
/// The standard library offers no public way to build a `String` from bytes already known to be
/// valid without validating them again, so validating first and then building costs two passes.
/// `String(validating:as:)` is one pass, but its generic `_validate` is not specialised for our
/// buffers and costs more than the validation itself (measured with callgrind: ~2.5×
/// `String(decoding:as:)` on the benchmark's strings).
///
/// Instead `String(decoding:as:)` — inlined, with the standard library's own ASCII fast path —
/// validates and builds in one pass. It replaces every ill-formed sequence with U+FFFD and leaves
/// well-formed input byte-for-byte unchanged, so:
/// - ASCII input (checked a word at a time, stopping at the first non-ASCII byte) cannot be
///   repaired, and needs no further check;
/// - any other input was valid exactly when the result's UTF-8 equals it (a comparison of bytes
///   already in cache, a word at a time).
enum UTF8Validation {
    private static let highBits: UInt64 = 0x8080_8080_8080_8080

    /// Returns the string if `bytes` are valid UTF-8, otherwise `nil`.
    @inline(__always)
    static func string(_ bytes: UnsafeRawBufferPointer) -> String? {
        var string = String(decoding: bytes, as: UTF8.self)
        if isASCII(bytes) { return string }
        let unchanged = string.withUTF8 { utf8 in equal(UnsafeRawBufferPointer(utf8), bytes) }
        return unchanged ? string : nil
    }

    /// Whether every byte is below 0x80.
    @inline(__always)
    static func isASCII(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let count = bytes.count
        guard count >= 8 else {
            var bits: UInt8 = 0
            for index in 0..<count { bits |= bytes[index] }
            return bits < 0x80
        }
        var index = 0
        while index + 8 <= count {
            guard bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self) & highBits == 0 else { return false }
            index += 8
        }
        // The last word overlaps the previous one rather than checking the tail byte by byte.
        return bytes.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self) & highBits == 0
    }

    /// Whether `a` and `b` hold the same bytes.
    @inline(__always)
    static func equal(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
        let count = a.count
        guard count == b.count else { return false }
        guard count >= 8 else {
            for index in 0..<count where a[index] != b[index] { return false }
            return true
        }
        var index = 0
        while index + 8 <= count {
            guard a.loadUnaligned(fromByteOffset: index, as: UInt64.self) == b.loadUnaligned(fromByteOffset: index, as: UInt64.self) else {
                return false
            }
            index += 8
        }
        return a.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self) == b.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
    }
}
