/// Strict UTF-8 validation (Unicode Table 3-7: no overlongs, no surrogates, nothing above U+10FFFF).
///
/// `String(validating:as:)` is generic and not specialised for our buffers, and its metadata
/// lookups cost more than the validation itself on short strings; this checks eight ASCII bytes
/// at a time and lets `String(decoding:as:)`, which is inlined, build the string.
enum UTF8Validation {
    /// Returns the string if `bytes` are valid UTF-8, otherwise `nil`.
    @inline(__always)
    static func string(_ bytes: UnsafeRawBufferPointer) -> String? {
        guard isValid(bytes) else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }

    static func isValid(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let count = bytes.count
        var index = 0
        while index < count {
            // ASCII fast path: eight bytes with no high bit.
            if index + 8 <= count, bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self) & 0x8080_8080_8080_8080 == 0 {
                index += 8
                continue
            }
            let lead = bytes[index]
            if lead < 0x80 {
                index += 1
                continue
            }
            let length: Int
            var low: UInt8 = 0x80, high: UInt8 = 0xBF  // the allowed range of the second byte
            switch lead {
            case 0xC2...0xDF: length = 2
            case 0xE0: length = 3; low = 0xA0
            case 0xE1...0xEC, 0xEE...0xEF: length = 3
            case 0xED: length = 3; high = 0x9F  // no surrogates
            case 0xF0: length = 4; low = 0x90
            case 0xF1...0xF3: length = 4
            case 0xF4: length = 4; high = 0x8F  // nothing above U+10FFFF
            default: return false
            }
            guard index + length <= count else { return false }
            let second = bytes[index + 1]
            guard second >= low && second <= high else { return false }
            for offset in 2..<length where bytes[index + offset] & 0xC0 != 0x80 { return false }
            index += length
        }
        return true
    }
}
