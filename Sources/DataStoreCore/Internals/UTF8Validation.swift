/// Strict UTF-8 validation (Unicode Table 3-7: no overlongs, no surrogates, nothing above U+10FFFF)
/// and `String` construction from bytes that passed it, validating only once.
///
/// Building strings is most of the cost of decoding a record, so this path is tuned:
/// - The standard library's validators (`String(decoding:as:)`, `String(validating:as:)`,
///   `UTF8Span(validating:)`) check a run of ASCII a word at a time only when the *whole* input
///   is ASCII; after the first non-ASCII byte they go byte by byte. Text is mostly ASCII with a
///   few multi-byte characters, so ``validate(_:)``
///   skips ASCII a word at a time *between* multi-byte sequences.
/// - With Swift 6.2's `UTF8Span(unchecked:isKnownASCII:)`, `String(copying:)` then copies the
///   bytes without validating them again. Older compilers fall back to `String(decoding:as:)`,
///   which validates a second time (with the stdlib's repair, which leaves valid input unchanged).
enum UTF8Validation {
    private static let highBits: UInt64 = 0x8080_8080_8080_8080

    /// Returns the string if `bytes` are valid UTF-8, otherwise `nil`.
    @inline(__always)
    static func string(_ bytes: UnsafeRawBufferPointer) -> String? {
        guard let isASCII = validate(bytes) else { return nil }
        return uncheckedString(bytes, isASCII: isASCII)
    }

    /// A `String` of `bytes`, which ``validate(_:)`` has accepted.
    @inline(__always)
    private static func uncheckedString(_ bytes: UnsafeRawBufferPointer, isASCII: Bool) -> String {
        #if compiler(>=6.2)
        let units = bytes.assumingMemoryBound(to: UInt8.self)
        return unsafe String(copying: UTF8Span(unchecked: units.span, isKnownASCII: isASCII))
        #else
        return String(decoding: bytes, as: UTF8.self)
        #endif
    }

    /// Whether `bytes` are valid UTF-8: `nil` if not, otherwise whether they are all ASCII.
    ///
    /// - Complexity: O(*n*); ASCII is checked eight bytes at a time, multi-byte sequences one
    ///   sequence at a time.
    @inline(__always)
    static func validate(_ bytes: UnsafeRawBufferPointer) -> Bool? {
        let count = bytes.count
        var index = 0
        var isASCII = true
        while index < count {
            if index + 8 <= count {
                let word = bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                let high = UInt64(littleEndian: word) & highBits
                if high == 0 {
                    index += 8
                    continue
                }
                // Skip the ASCII bytes in front of the first byte with its high bit set.
                index += high.trailingZeroBitCount / 8
            } else if bytes[index] < 0x80 {
                index += 1
                continue
            }
            isASCII = false
            guard let length = sequenceLength(bytes, at: index) else { return nil }
            index += length
        }
        return isASCII
    }

    /// The length of the well-formed multi-byte sequence starting at `index` (whose byte is at
    /// least 0x80), or `nil` if the bytes there are not one (Unicode Table 3-7).
    private static func sequenceLength(_ bytes: UnsafeRawBufferPointer, at index: Int) -> Int? {
        let count = bytes.count
        let lead = bytes[index]
        @inline(__always) func byte(_ offset: Int, in range: ClosedRange<UInt8>) -> Bool {
            index + offset < count && range.contains(bytes[index + offset])
        }
        switch lead {
        case 0xC2...0xDF:
            return byte(1, in: 0x80...0xBF) ? 2 : nil
        case 0xE0:
            return byte(1, in: 0xA0...0xBF) && byte(2, in: 0x80...0xBF) ? 3 : nil
        case 0xE1...0xEC, 0xEE...0xEF:
            return byte(1, in: 0x80...0xBF) && byte(2, in: 0x80...0xBF) ? 3 : nil
        case 0xED: // U+D000…U+D7FF; the surrogates U+D800…U+DFFF are not scalars
            return byte(1, in: 0x80...0x9F) && byte(2, in: 0x80...0xBF) ? 3 : nil
        case 0xF0:
            return byte(1, in: 0x90...0xBF) && byte(2, in: 0x80...0xBF) && byte(3, in: 0x80...0xBF) ? 4 : nil
        case 0xF1...0xF3:
            return byte(1, in: 0x80...0xBF) && byte(2, in: 0x80...0xBF) && byte(3, in: 0x80...0xBF) ? 4 : nil
        case 0xF4: // up to U+10FFFF
            return byte(1, in: 0x80...0x8F) && byte(2, in: 0x80...0xBF) && byte(3, in: 0x80...0xBF) ? 4 : nil
        default: // a continuation byte without a lead, an overlong lead (C0, C1), or F5…FF
            return nil
        }
    }
}
