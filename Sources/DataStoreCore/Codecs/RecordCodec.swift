/// The binary record format: how one ``Document`` is stored as an LMDB value.
///
/// Specified in docs/encoding.md ("Record format, version 1"): a format byte `0x01`, a field
/// count, then the fields sorted by name, each value tagged and length-prefixed so a reader can
/// skip it. Encoding is deterministic and canonical; decoding validates every length before it
/// reads or allocates, so truncated or hostile bytes throw ``CodecError`` and never crash.
package enum RecordCodec {
    /// The leading byte of every record this version writes.
    package static let formatVersion: UInt8 = 0x01

    /// The deepest nesting of documents and arrays a record may hold, counting the record itself.
    package static let maxDepth = 64

    /// The value tags of docs/encoding.md.
    enum Tag {
        static let null: UInt8 = 0x01
        static let `false`: UInt8 = 0x02
        static let `true`: UInt8 = 0x03
        static let int8: UInt8 = 0x04
        static let int16: UInt8 = 0x05
        static let int32: UInt8 = 0x06
        static let int64: UInt8 = 0x07
        static let double: UInt8 = 0x08
        static let string: UInt8 = 0x09
        static let bytes: UInt8 = 0x0A
        static let array: UInt8 = 0x0B
        static let object: UInt8 = 0x0C
    }

    // MARK: - Encoding

    /// Returns the record bytes of `document`: deterministic, with fields sorted by name bytes.
    ///
    /// - Throws: `CodecError.tooDeep`, naming the field path, when the document nests deeper
    ///   than ``maxDepth`` (checked before each level is written).
    /// - Complexity: O(*n* log *n*) in the number of fields (they are sorted), O(*n*) in bytes.
    package static func encode(_ document: Document) throws(CodecError) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(64)
        try encode(document, into: &bytes)
        return bytes
    }

    /// Appends the record bytes of `document` to `bytes`.
    ///
    /// - Throws: See ``encode(_:)``; `bytes` then holds part of a record.
    /// - Complexity: See ``encode(_:)``.
    package static func encode(_ document: Document, into bytes: inout [UInt8]) throws(CodecError) {
        bytes.append(formatVersion)
        try appendEntries(document, to: &bytes, depth: 1)
    }

    /// Throws unless `document` can be encoded: its nesting must not exceed ``maxDepth``.
    ///
    /// - Throws: `CodecError.tooDeep` naming the field path of the first container too deep.
    /// - Complexity: O(*n*) in the size of the document's first ``maxDepth`` levels.
    package static func validate(_ document: Document) throws(CodecError) {
        try Value.object(document).checkNesting(limit: maxDepth)
    }

    /// `depth` is the level of `document`, the record itself being 1.
    private static func appendEntries(_ document: Document, to bytes: inout [UInt8], depth: Int) throws(CodecError) {
        guard depth <= maxDepth else { throw Value.tooDeep() }
        bytes.appendVarint(document.count)
        for field in document.sortedFields {
            var name = field.name
            name.withUTF8 { utf8 in
                bytes.appendVarint(utf8.count)
                bytes.append(contentsOf: utf8)
            }
            do throws(CodecError) {
                try appendValue(field.value, to: &bytes, depth: depth)
            } catch {
                throw error.inField(field.name)
            }
        }
    }

    /// Appends one tagged value held by a container at level `depth`.
    static func appendValue(_ value: Value, to bytes: inout [UInt8], depth: Int) throws(CodecError) {
        switch value {
        case .array(let elements):
            guard depth < maxDepth else { throw Value.tooDeep() }
            bytes.append(Tag.array)
            try appendBody(to: &bytes) { (body: inout [UInt8]) throws(CodecError) in
                body.appendVarint(elements.count)
                for (index, element) in elements.enumerated() {
                    do throws(CodecError) {
                        try appendValue(element, to: &body, depth: depth + 1)
                    } catch {
                        throw error.inElement(index)
                    }
                }
            }
        case .object(let document):
            bytes.append(Tag.object)
            try appendBody(to: &bytes) { (body: inout [UInt8]) throws(CodecError) in
                try appendEntries(document, to: &body, depth: depth + 1)
            }
        default:
            appendScalar(value, to: &bytes)
        }
    }

    /// Appends one tagged value that is not an array or an object.
    static func appendScalar(_ value: Value, to bytes: inout [UInt8]) {
        switch value {
        case .null:
            bytes.append(Tag.null)
        case .bool(let flag):
            bytes.append(flag ? Tag.true : Tag.false)
        case .int(let number):
            // The smallest width that holds the number: the canonical form.
            if let small = Int8(exactly: number) {
                bytes.append(Tag.int8)
                bytes.append(UInt8(bitPattern: small))
            } else if let small = Int16(exactly: number) {
                bytes.append(Tag.int16)
                bytes.appendLittleEndian(small)
            } else if let small = Int32(exactly: number) {
                bytes.append(Tag.int32)
                bytes.appendLittleEndian(small)
            } else {
                bytes.append(Tag.int64)
                bytes.appendLittleEndian(number)
            }
        case .double(let number):
            bytes.append(Tag.double)
            bytes.appendLittleEndian(number.bitPattern)
        case .string(var text):
            bytes.append(Tag.string)
            text.withUTF8 { utf8 in
                bytes.appendVarint(utf8.count)
                bytes.append(contentsOf: utf8)
            }
        case .bytes(let raw):
            bytes.append(Tag.bytes)
            bytes.appendVarint(raw.count)
            bytes.append(contentsOf: raw)
        case .array, .object:
            preconditionFailure("appendScalar is given only scalars")
        }
    }

    /// Writes a body and then its length in front of it. The length is only known afterwards;
    /// moving the body by the varint's 1–5 bytes is cheaper than measuring every value twice.
    private static func appendBody(to bytes: inout [UInt8], _ write: (inout [UInt8]) throws(CodecError) -> Void)
        throws(CodecError)
    {
        let start = bytes.count
        try write(&bytes)
        var length: [UInt8] = []
        length.appendVarint(bytes.count - start)
        bytes.insert(contentsOf: length, at: start)
    }

    // MARK: - Decoding

    /// Decodes a whole record.
    ///
    /// - Parameter bytes: The record, as written by ``encode(_:)``.
    /// - Returns: The document.
    /// - Throws: `CodecError` with code `.truncated`, `.corrupt`, `.unsupportedVersion` or
    ///   `.tooDeep`, naming the offset and the field path.
    /// - Complexity: O(*n*) in the number of bytes.
    package static func decode(_ bytes: UnsafeRawBufferPointer) throws(CodecError) -> Document {
        var reader = try openRecord(bytes)
        let document = try readEntries(&reader, depth: 1)
        guard reader.isAtEnd else {
            throw CodecError(.corrupt, "\(reader.remaining) bytes after the last field", offset: reader.offset)
        }
        return document
    }

    /// Decodes a whole record held in an array.
    ///
    /// - Throws: See ``decode(_:)-(UnsafeRawBufferPointer)``.
    /// - Complexity: O(*n*) in the number of bytes.
    package static func decode(_ bytes: [UInt8]) throws(CodecError) -> Document {
        try withBytes(bytes) { buffer throws(CodecError) in try decode(buffer) }
    }

    /// Calls `body` with `bytes`' storage. (`Array.withUnsafeBytes` rethrows untyped errors;
    /// this keeps the typed `CodecError` intact.)
    static func withBytes<R>(_ bytes: [UInt8], _ body: (UnsafeRawBufferPointer) throws(CodecError) -> R)
        throws(CodecError) -> R
    {
        let result: Result<R, CodecError> = bytes.withUnsafeBytes { buffer in
            do throws(CodecError) { return .success(try body(buffer)) } catch { return .failure(error) }
        }
        return try result.get()
    }

    /// Checks the format byte and returns a reader positioned at the field count.
    static func openRecord(_ bytes: UnsafeRawBufferPointer) throws(CodecError) -> ByteReader {
        var reader = ByteReader(bytes)
        let version = try reader.readUInt8("the format byte")
        guard version == formatVersion else {
            throw CodecError(
                .unsupportedVersion, "format byte 0x\(String(version, radix: 16)); this build reads 0x01", offset: 0)
        }
        return reader
    }

    /// Reads a field count and that many entries, checking names are strictly ascending.
    static func readEntries(_ reader: inout ByteReader, depth: Int) throws(CodecError) -> Document {
        let countOffset = reader.offset
        let count = try reader.readVarint()
        // Each entry takes at least 2 bytes (name length, tag): bound the count before reserving.
        guard count <= reader.remaining / 2 else {
            throw CodecError(.truncated, "\(count) fields cannot fit in \(reader.remaining) bytes", offset: countOffset)
        }
        var fields: [String: Value] = [:]
        fields.reserveCapacity(count)
        var previousName = UnsafeRawBufferPointer(start: nil, count: 0)
        for index in 0..<count {
            let nameOffset = reader.offset
            let nameLength = try reader.readVarint()
            let nameBytes = try reader.readBytes(nameLength, "field name")
            guard index == 0 || UTF8Order.compare(previousName, nameBytes) < 0 else {
                throw CodecError(.corrupt, "field names are not strictly ascending", offset: nameOffset)
            }
            previousName = nameBytes
            let name = try makeString(nameBytes, offset: nameOffset)
            let value: Value
            do throws(CodecError) {
                value = try readValue(&reader, depth: depth)
            } catch {
                throw error.inField(name)
            }
            guard fields.updateValue(value, forKey: name) == nil else {
                throw CodecError(
                    .corrupt, "field name '\(name)' appears twice (canonically equivalent spellings)",
                    offset: nameOffset)
            }
        }
        return Document(fields)
    }

    /// Reads one tagged value.
    static func readValue(_ reader: inout ByteReader, depth: Int) throws(CodecError) -> Value {
        let tagOffset = reader.offset
        let tag = try reader.readUInt8("a value tag")
        switch tag {
        case Tag.null:
            return .null
        case Tag.false:
            return .bool(false)
        case Tag.true:
            return .bool(true)
        case Tag.int8...Tag.int64, Tag.double, Tag.string, Tag.bytes:
            return try readScalar(tag: tag, &reader, tagOffset: tagOffset)
        case Tag.array:
            var body = try openBody(&reader, depth: depth, tagOffset: tagOffset)
            let countOffset = body.offset
            let count = try body.readVarint()
            guard count <= body.remaining else { // every element takes at least one byte
                throw CodecError(
                    .truncated, "\(count) elements cannot fit in \(body.remaining) bytes", offset: countOffset)
            }
            var elements: [Value] = []
            elements.reserveCapacity(count)
            for index in 0..<count {
                do throws(CodecError) {
                    elements.append(try readValue(&body, depth: depth + 1))
                } catch {
                    throw error.inElement(index)
                }
            }
            try closeBody(body)
            return .array(elements)
        case Tag.object:
            var body = try openBody(&reader, depth: depth, tagOffset: tagOffset)
            let document = try readEntries(&body, depth: depth + 1)
            try closeBody(body)
            return .object(document)
        default:
            throw CodecError(.corrupt, "reserved value tag 0x\(String(tag, radix: 16))", offset: tagOffset)
        }
    }

    /// Reads the payload of a non-container tag.
    @inline(__always)
    static func readScalar(tag: UInt8, _ reader: inout ByteReader, tagOffset: Int) throws(CodecError) -> Value {
        switch tag {
        case Tag.int8...Tag.int64:
            return .int(try readInteger(tag: tag, &reader, tagOffset: tagOffset))
        case Tag.double:
            return .double(Double(bitPattern: try reader.readLittleEndian(UInt64.self)))
        case Tag.string:
            let length = try reader.readVarint()
            return .string(try makeString(try reader.readBytes(length, "string"), offset: tagOffset))
        case Tag.bytes:
            let length = try reader.readVarint()
            return .bytes(Array(try reader.readBytes(length, "bytes")))
        default:
            throw CodecError(.corrupt, "tag 0x\(String(tag, radix: 16)) is not a scalar", offset: tagOffset)
        }
    }

    /// Reads the payload of an integer tag (`int8`…`int64`), rejecting a non-canonical width.
    @inline(__always)
    static func readInteger(tag: UInt8, _ reader: inout ByteReader, tagOffset: Int) throws(CodecError) -> Int64 {
        switch tag {
        case Tag.int8:
            return Int64(Int8(bitPattern: try reader.readUInt8("an int8")))
        case Tag.int16:
            let number = try reader.readLittleEndian(Int16.self)
            guard Int8(exactly: number) == nil else { throw nonMinimal(tagOffset) }
            return Int64(number)
        case Tag.int32:
            let number = try reader.readLittleEndian(Int32.self)
            guard Int16(exactly: number) == nil else { throw nonMinimal(tagOffset) }
            return Int64(number)
        default:
            let number = try reader.readLittleEndian(Int64.self)
            guard Int32(exactly: number) == nil else { throw nonMinimal(tagOffset) }
            return number
        }
    }

    private static func nonMinimal(_ offset: Int) -> CodecError {
        CodecError(.corrupt, "integer not written in its smallest width", offset: offset)
    }

    /// Reads a body length and returns a reader confined to the body.
    static func openBody(_ reader: inout ByteReader, depth: Int, tagOffset: Int) throws(CodecError)
        -> ByteReader
    {
        guard depth < maxDepth else {
            throw CodecError(.tooDeep, "nesting exceeds \(maxDepth) levels", offset: tagOffset)
        }
        let length = try reader.readVarint()
        try reader.require(length, "container body")
        let body = ByteReader(reader.bytes, offset: reader.offset, end: reader.offset + length)
        reader.offset += length
        return body
    }

    private static func closeBody(_ body: ByteReader) throws(CodecError) {
        guard body.isAtEnd else {
            throw CodecError(.corrupt, "\(body.remaining) unread bytes at the end of a container", offset: body.offset)
        }
    }

    /// Makes a `String` from bytes that must be valid UTF-8.
    @inline(__always)
    static func makeString(_ bytes: UnsafeRawBufferPointer, offset: Int) throws(CodecError) -> String {
        guard let string = UTF8Validation.string(bytes) else {
            throw CodecError(.corrupt, "invalid UTF-8 in a string of \(bytes.count) bytes", offset: offset)
        }
        return string
    }
}
