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
    ///
    /// A short ASCII string is built in place by `String(unsafeUninitializedCapacity:)`, which
    /// then only tests the ASCII bit of its two words, where the unchecked copy would assemble
    /// them byte by byte.
    @inline(__always)
    private static func uncheckedString(_ bytes: UnsafeRawBufferPointer, isASCII: Bool) -> String {
        let count = bytes.count
        if isASCII && count <= smallCapacity {
            guard count > 0 else { return "" }
            return String(unsafeUninitializedCapacity: count) { buffer in
                copyShort(bytes, to: UnsafeMutableRawPointer(buffer.baseAddress.unsafelyUnwrapped), count: count)
                return count
            }
        }
        #if compiler(>=6.2)
        let units = bytes.assumingMemoryBound(to: UInt8.self)
        return unsafe String(copying: UTF8Span(unchecked: units.span, isKnownASCII: isASCII))
        #else
        return String(decoding: bytes, as: UTF8.self)
        #endif
    }

    /// The longest string the standard library keeps inline, without an allocation.
    private static let smallCapacity = 15

    /// Copies `count` (1 to 15) bytes with two overlapping loads and stores, never touching a
    /// byte outside either buffer's first `count`.
    @inline(__always)
    private static func copyShort(_ source: UnsafeRawBufferPointer, to target: UnsafeMutableRawPointer, count: Int) {
        let from = source.baseAddress.unsafelyUnwrapped
        if count >= 8 {
            let head = from.loadUnaligned(as: UInt64.self),
                tail = from.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
            target.storeBytes(of: head, as: UInt64.self)
            target.storeBytes(of: tail, toByteOffset: count - 8, as: UInt64.self)
        } else if count >= 4 {
            let head = from.loadUnaligned(as: UInt32.self),
                tail = from.loadUnaligned(fromByteOffset: count - 4, as: UInt32.self)
            target.storeBytes(of: head, as: UInt32.self)
            target.storeBytes(of: tail, toByteOffset: count - 4, as: UInt32.self)
        } else {
            // One to three bytes: the first, the middle (or first again) and the last.
            target.storeBytes(of: source[0], as: UInt8.self)
            target.storeBytes(of: source[count / 2], toByteOffset: count / 2, as: UInt8.self)
            target.storeBytes(of: source[count - 1], toByteOffset: count - 1, as: UInt8.self)
        }
    }

    /// Whether `bytes` are valid UTF-8: `nil` if not, otherwise whether they are all ASCII.
    ///
    /// All-ASCII input, the common case, is settled by a few whole-word tests: sixteen bytes a
    /// step, then one last word that overlaps the step before (or, under eight bytes, two
    /// overlapping smaller loads); only input with a high bit set goes through ``validate(_:from:)``.
    ///
    /// - Complexity: O(*n*); ASCII is checked eight or sixteen bytes at a time, multi-byte
    ///   sequences one sequence at a time.
    @inline(__always)
    static func validate(_ bytes: UnsafeRawBufferPointer) -> Bool? {
        let count = bytes.count
        guard let base = bytes.baseAddress, count > 0 else { return true }
        guard count >= 8 else {
            let high: UInt32
            if count >= 4 {
                high =
                    (base.loadUnaligned(as: UInt32.self)
                        | base.loadUnaligned(fromByteOffset: count - 4, as: UInt32.self))
            } else {
                high = UInt32(
                    base.load(as: UInt8.self) | base.load(fromByteOffset: count / 2, as: UInt8.self)
                        | base.load(fromByteOffset: count - 1, as: UInt8.self))
            }
            return high & 0x8080_8080 == 0 ? true : validate(bytes, from: 0)
        }
        var index = 0
        while index &+ 16 <= count {
            let pair =
                base.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                | base.loadUnaligned(fromByteOffset: index + 8, as: UInt64.self)
            if pair & highBits != 0 { return validate(bytes, from: index) }
            index &+= 16
        }
        if index + 8 <= count {
            if base.loadUnaligned(fromByteOffset: index, as: UInt64.self) & highBits != 0 {
                return validate(bytes, from: index)
            }
            index += 8
        }
        if index < count && base.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self) & highBits != 0 {
            return validate(bytes, from: index)
        }
        return true
    }

    /// ``validate(_:)`` from `start`, before which every byte is ASCII: skips ASCII a word at a
    /// time *between* multi-byte sequences, which are checked one sequence at a time.
    private static func validate(_ bytes: UnsafeRawBufferPointer, from start: Int) -> Bool? {
        var index = start
        var isASCII = true
        while let next = firstNonASCII(bytes, from: index) {
            isASCII = false
            guard let length = sequenceLength(bytes, at: next) else { return nil }
            index = next + length
        }
        return isASCII
    }

    /// The offset of the first byte at or after `start` with its high bit set, or `nil`: a word
    /// at a time, the last partial word read as the final eight bytes with those before `start`
    /// shifted out.
    @inline(__always)
    private static func firstNonASCII(_ bytes: UnsafeRawBufferPointer, from start: Int) -> Int? {
        let count = bytes.count
        var index = start
        while index &+ 8 <= count {
            let high = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self)) & highBits
            if high != 0 { return index &+ high.trailingZeroBitCount / 8 }
            index &+= 8
        }
        guard index < count else { return nil }
        guard count >= 8 else {
            while index < count {
                if bytes[index] >= 0x80 { return index }
                index += 1
            }
            return nil
        }
        let last = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)) & highBits
        let high = last >> UInt64(truncatingIfNeeded: (index - (count - 8)) * 8)
        return high == 0 ? nil : index + high.trailingZeroBitCount / 8
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
