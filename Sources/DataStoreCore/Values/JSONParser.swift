// The package's one JSON reader, shared by the `datastore` tool, the REST model and `JSONForm`.
//
// Numbers keep what the text says: an integer literal is an `Int64` or an `outOfRange` error,
// never a double; a literal with a fraction or an exponent is the double nearest to it (the
// standard library's parser rounds correctly), so every double `JSONForm` writes reads back bit
// for bit. Foundation's JSONSerialization is not used: on Linux it hands long literals back as
// `NSDecimalNumber`, whose `doubleValue` is not correctly rounded.
import Foundation

/// A strict RFC 8259 parser from UTF-8 bytes to ``Value``.
///
/// Strings must be valid UTF-8 (no lone surrogates, raw or escaped); object field names must be
/// unique; containers may nest at most ``RecordCodec/maxDepth`` levels, checked before each
/// container is read, so no input can exhaust the stack. A one-field object `{"$base64": "…"}`
/// whose text is valid base64 is read as bytes (``JSONForm/bytesKey``).
struct JSONParser: ~Copyable {
    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0

    private init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    /// The one JSON value in `bytes`, with nothing but white space around it.
    ///
    /// - Throws: ``CodecError`` `.corrupt` (with the byte offset) for text that is not JSON,
    ///   `.truncated` when it ends inside a value, `.outOfRange` for an integer outside `Int64` or a
    ///   number beyond a double's range, `.tooDeep` past ``RecordCodec/maxDepth`` levels; the field
    ///   path names where the value stands.
    /// - Complexity: O(*n*) in the length of the text.
    static func parse(_ bytes: UnsafeBufferPointer<UInt8>) throws(CodecError) -> Value {
        var parser = JSONParser(bytes)
        parser.skipWhitespace()
        let value = try parser.value(depth: 0)
        parser.skipWhitespace()
        guard parser.index == bytes.count else {
            throw parser.failure("unexpected \(parser.describeCurrent()) after the JSON value")
        }
        return value
    }

    // MARK: Values

    /// `depth` counts the containers around the value about to be read.
    private mutating func value(depth: Int) throws(CodecError) -> Value {
        guard index < bytes.count else { throw truncation("a value") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try object(depth: try deeper(depth))
        case UInt8(ascii: "["): return try array(depth: try deeper(depth))
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"):
            try literal("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try literal("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try literal("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
        default: throw failure("unexpected \(describeCurrent()) where a value should start")
        }
    }

    private func deeper(_ depth: Int) throws(CodecError) -> Int {
        guard depth < RecordCodec.maxDepth else {
            throw CodecError(
                .tooDeep, "arrays and objects nest deeper than \(RecordCodec.maxDepth) levels",
                offset: index)
        }
        return depth + 1
    }

    private mutating func object(depth: Int) throws(CodecError) -> Value {
        index += 1
        var fields: [String: Value] = [:]
        skipWhitespace()
        if try peek("an object's field or its end") == UInt8(ascii: "}") {
            index += 1
            return .object(Document(fields))
        }
        while true {
            guard try peek("a field name") == UInt8(ascii: "\"") else {
                throw failure("unexpected \(describeCurrent()) where a field name (a string) should be")
            }
            let nameOffset = index
            let name = try string()
            skipWhitespace()
            try expect(UInt8(ascii: ":"), "after field name \"\(name)\"")
            skipWhitespace()
            do throws(CodecError) {
                let field = try value(depth: depth)
                guard fields.updateValue(field, forKey: name) == nil else {
                    throw CodecError(.corrupt, "the object has the field \"\(name)\" twice", offset: nameOffset)
                }
            } catch {
                throw error.inField(name)
            }
            skipWhitespace()
            switch try peek("',' or '}' in an object") {
            case UInt8(ascii: ","):
                index += 1
                skipWhitespace()
            case UInt8(ascii: "}"):
                index += 1
                return Self.restoringBytes(fields)
            default:
                throw failure("unexpected \(describeCurrent()) where ',' or '}' should follow a field")
            }
        }
    }

    /// The object, or the bytes it carries when it is `{"$base64": "…"}` with valid base64.
    private static func restoringBytes(_ fields: [String: Value]) -> Value {
        if fields.count == 1, case .string(let text)? = fields[JSONForm.bytesKey], let bytes = Data(base64Encoded: text)
        {
            return .bytes(Array(bytes))
        }
        return .object(Document(fields))
    }

    private mutating func array(depth: Int) throws(CodecError) -> Value {
        index += 1
        var elements: [Value] = []
        skipWhitespace()
        if try peek("an array's element or its end") == UInt8(ascii: "]") {
            index += 1
            return .array(elements)
        }
        while true {
            do throws(CodecError) {
                elements.append(try value(depth: depth))
            } catch {
                throw error.inElement(elements.count)
            }
            skipWhitespace()
            switch try peek("',' or ']' in an array") {
            case UInt8(ascii: ","):
                index += 1
                skipWhitespace()
            case UInt8(ascii: "]"):
                index += 1
                return .array(elements)
            default:
                throw failure("unexpected \(describeCurrent()) where ',' or ']' should follow an element")
            }
        }
    }

    private mutating func literal(_ word: StaticString) throws(CodecError) {
        let length = word.utf8CodeUnitCount
        guard index + length <= bytes.count else { throw truncation("\(word)") }
        for offset in 0..<length where bytes[index + offset] != word.utf8Start[offset] {
            throw failure("unexpected \(describeCurrent()) where a value should start")
        }
        index += length
    }

    // MARK: Strings

    /// Reads a string literal starting at its opening quote.
    private mutating func string() throws(CodecError) -> String {
        let start = index
        index += 1
        let runStart = index
        // Fast path: no escapes, the bytes between the quotes are the string.
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let run = UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
                index += 1
                guard let text = UTF8Validation.string(run) else { throw invalidUTF8(in: run, from: runStart) }
                return text
            }
            if byte == UInt8(ascii: "\\") || byte < 0x20 { break }
            index += 1
        }
        var buffer = Array(bytes[runStart..<index])
        while true {
            guard index < bytes.count else {
                throw CodecError(
                    .truncated, "the text ends inside the string that starts at offset \(start)",
                    offset: index)
            }
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                let text = buffer.withUnsafeBytes { UTF8Validation.string($0) }
                guard let text else {
                    throw CodecError(
                        .corrupt, "the string that starts at offset \(start) is not valid UTF-8",
                        offset: start)
                }
                return text
            case UInt8(ascii: "\\"):
                try escape(into: &buffer)
            case 0..<0x20:
                throw failure(
                    "control character U+\(hex(byte, digits: 4)) inside a string (write it as \\u\(hex(byte, digits: 4)))"
                )
            default:
                buffer.append(byte)
                index += 1
            }
        }
    }

    /// Appends the UTF-8 of the escape sequence at `index` (its backslash) to `buffer`.
    private mutating func escape(into buffer: inout [UInt8]) throws(CodecError) {
        let start = index
        index += 1
        guard index < bytes.count else { throw truncation("an escape sequence") }
        let letter = bytes[index]
        index += 1
        switch letter {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): buffer.append(letter)
        case UInt8(ascii: "b"): buffer.append(0x08)
        case UInt8(ascii: "f"): buffer.append(0x0C)
        case UInt8(ascii: "n"): buffer.append(0x0A)
        case UInt8(ascii: "r"): buffer.append(0x0D)
        case UInt8(ascii: "t"): buffer.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = try hexQuad()
            if (0xD800...0xDBFF).contains(scalar) {
                guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u")
                else {
                    throw CodecError(
                        .corrupt, "\\u\(hex(scalar, digits: 4)) is a high surrogate without its low half",
                        offset: start)
                }
                index += 2
                let low = try hexQuad()
                guard (0xDC00...0xDFFF).contains(low) else {
                    throw CodecError(
                        .corrupt,
                        "\\u\(hex(scalar, digits: 4)) is followed by \\u\(hex(low, digits: 4)), "
                            + "not a low surrogate", offset: start)
                }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00...0xDFFF).contains(scalar) {
                throw CodecError(
                    .corrupt, "\\u\(hex(scalar, digits: 4)) is a low surrogate without its high half",
                    offset: start)
            }
            buffer.append(contentsOf: UTF8.encode(Unicode.Scalar(scalar)!)!)
        default:
            throw CodecError(.corrupt, "\\\(describe(letter)) is not an escape sequence", offset: start)
        }
    }

    private mutating func hexQuad() throws(CodecError) -> UInt32 {
        guard index + 4 <= bytes.count else { throw truncation("a \\u escape") }
        var scalar: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw failure("unexpected \(describeCurrent()) in a \\u escape (four hexadecimal digits)")
            }
            scalar = scalar << 4 | UInt32(digit)
            index += 1
        }
        return scalar
    }

    // MARK: Numbers

    private mutating func number() throws(CodecError) -> Value {
        let start = index
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count, isDigit(bytes[index]) else {
            throw index < bytes.count
                ? failure("unexpected \(describeCurrent()) after '-' (a digit should follow)")
                : truncation("a number")
        }
        if bytes[index] == UInt8(ascii: "0"), index + 1 < bytes.count, isDigit(bytes[index + 1]) {
            throw failure("a number may not start with 0 followed by more digits")
        }
        skipDigits()
        var isInteger = true
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            isInteger = false
            index += 1
            guard index < bytes.count, isDigit(bytes[index]) else {
                throw failure("a '.' in a number must be followed by digits")
            }
            skipDigits()
        }
        if index < bytes.count, bytes[index] | 0x20 == UInt8(ascii: "e") {
            isInteger = false
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                index += 1
            }
            guard index < bytes.count, isDigit(bytes[index]) else { throw failure("an exponent must have digits") }
            skipDigits()
        }
        let literal = UnsafeBufferPointer(rebasing: bytes[start..<index])
        return isInteger ? try integer(literal, at: start) : try double(literal, at: start)
    }

    /// An integer literal as `Int64`, accumulated as a negative number so `Int64.min` fits.
    private func integer(_ literal: UnsafeBufferPointer<UInt8>, at offset: Int) throws(CodecError) -> Value {
        let negative = literal[0] == UInt8(ascii: "-")
        var value: Int64 = 0
        for byte in literal.dropFirst(negative ? 1 : 0) {
            let (times10, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (next, overflow2) = times10.subtractingReportingOverflow(Int64(byte - UInt8(ascii: "0")))
            guard !overflow1 && !overflow2 else { throw outOfRange(literal, at: offset) }
            value = next
        }
        if negative { return .int(value) }
        guard value != .min else { throw outOfRange(literal, at: offset) }
        return .int(-value)
    }

    private func outOfRange(_ literal: UnsafeBufferPointer<UInt8>, at offset: Int) -> CodecError {
        CodecError.integerOutOfRange(String(decoding: literal, as: UTF8.self), offset: offset)
    }

    private func double(_ literal: UnsafeBufferPointer<UInt8>, at offset: Int) throws(CodecError) -> Value {
        try CodecError.nearestDouble(String(decoding: literal, as: UTF8.self), offset: offset)
    }

    private func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    private mutating func skipDigits() {
        while index < bytes.count, isDigit(bytes[index]) { index += 1 }
    }

    // MARK: Reading helpers

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t"): index += 1
            default: return
            }
        }
    }

    private func peek(_ expected: String) throws(CodecError) -> UInt8 {
        guard index < bytes.count else { throw truncation(expected) }
        return bytes[index]
    }

    private mutating func expect(_ byte: UInt8, _ context: String) throws(CodecError) {
        guard try peek("'\(describe(byte))' \(context)") == byte else {
            throw failure("unexpected \(describeCurrent()) where '\(describe(byte))' should be, \(context)")
        }
        index += 1
    }

    private func failure(_ message: String) -> CodecError {
        CodecError(.corrupt, message, offset: index)
    }

    private func truncation(_ expected: String) -> CodecError {
        CodecError(.truncated, "the text ends where \(expected) should be", offset: index)
    }

    private func invalidUTF8(in run: UnsafeRawBufferPointer, from runStart: Int) -> CodecError {
        CodecError(.corrupt, "a string holds bytes that are not valid UTF-8", offset: runStart + firstInvalid(run))
    }

    /// The offset of the first byte of `run` that starts no valid UTF-8 sequence.
    private func firstInvalid(_ run: UnsafeRawBufferPointer) -> Int {
        var start = 0
        while start < run.count {
            let lead = run[start]
            let length = lead < 0x80 ? 1 : lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC2 ? 2 : 0
            guard length > 0, start + length <= run.count,
                UTF8Validation.validate(UnsafeRawBufferPointer(rebasing: run[start..<start + length])) != nil
            else { return start }
            start += length
        }
        return start
    }

    private func describeCurrent() -> String {
        index < bytes.count ? "'\(describe(bytes[index]))'" : "the end of the text"
    }

    private func describe(_ byte: UInt8) -> String {
        (0x21..<0x7F).contains(byte) ? String(UnicodeScalar(byte)) : "byte 0x\(hex(byte, digits: 2))"
    }

    private func hex(_ value: some BinaryInteger, digits: Int) -> String {
        let text = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }
}
