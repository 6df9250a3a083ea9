/// Decodes `Decodable` values directly from record bytes, without building a ``Document``.
///
/// This is the store's hot path: a field is found by scanning the record's sorted names and
/// skipping values by their lengths, and only the values the type asks for are decoded.
/// It accepts exactly what ``DocumentDecoder`` accepts for the same document.
///
/// Unlike ``RecordCodec/decode(_:)-(UnsafeRawBufferPointer)``, it validates only the bytes it
/// reads (every read is bounds-checked, so damaged bytes throw, never crash); fields the type
/// does not ask for are not inspected.
///
/// ```swift
/// let message = try RecordDecoder().decode(Message.self, from: recordBytes)
/// ```
public struct RecordDecoder: Sendable {
    /// Creates a decoder.
    public init() {}

    /// Decodes a `T` from a record.
    ///
    /// - Parameters:
    ///   - type: The type to decode; it must decode from a keyed container.
    ///   - bytes: A record written by ``RecordCodec/encode(_:)``. The bytes are only read
    ///     during the call.
    /// - Throws: `DecodingError` as ``DocumentDecoder`` does; damaged bytes are reported as
    ///   `dataCorrupted` with the ``CodecError`` as the underlying error.
    /// - Complexity: O(*f* + *n*): the record's field names, plus the values decoded.
    public func decode<T: Decodable>(_ type: T.Type, from bytes: UnsafeRawBufferPointer) throws -> T {
        let decoder = SourceDecoder(source: DecodingSource(bytes: bytes), position: .record(RecordSource.root), codingPath: [])
        return try decoder.unbox(type, at: .record(RecordSource.root), path: [])
    }

    /// Decodes a `T` from a record held in an array.
    ///
    /// - Throws: See ``decode(_:from:)-(_,UnsafeRawBufferPointer)``.
    /// - Complexity: See ``decode(_:from:)-(_,UnsafeRawBufferPointer)``.
    public func decode<T: Decodable>(_ type: T.Type, from bytes: [UInt8]) throws -> T {
        try bytes.withUnsafeBytes { try decode(type, from: $0) }
    }
}

/// Record bytes read in place for ``DecodingSource``: a position is the offset of a value's tag,
/// or ``root`` for the record itself (which has no tag).
struct RecordSource {
    let bytes: UnsafeRawBufferPointer

    static let root = -1

    /// An object's fields, indexed once when its container is opened so that each lookup
    /// compares names only, without re-skipping the values in between.
    struct Object {
        /// Where each field's name bytes and value tag are, in record (name) order.
        let fields: [(name: Range<Int>, value: Int)]
    }

    /// Reads the entries in `entries..<end` into an ``Object``.
    private func index(from entries: Int, to end: Int) throws(CodecError) -> Object {
        var reader = ByteReader(bytes, offset: entries, end: end)
        var fields: [(name: Range<Int>, value: Int)] = []
        fields.reserveCapacity(8)
        while !reader.isAtEnd {
            let length = try reader.readVarint()
            try reader.require(length, "field name")
            let name = reader.offset..<(reader.offset + length)
            reader.offset += length
            fields.append((name, reader.offset))
            try RecordCodec.skipValue(&reader)
        }
        return Object(fields: fields)
    }

    func typeName(at position: Int) throws(CodecError) -> String {
        if position == Self.root { return "object" }
        var reader = ByteReader(bytes, offset: position)
        switch try reader.readUInt8("a value tag") {
        case RecordCodec.Tag.array: return "array"
        case RecordCodec.Tag.object: return "object"
        default:
            reader.offset = position
            return try RecordCodec.readValue(&reader, depth: 1).typeName
        }
    }

    func scalar(at position: Int) throws(CodecError) -> Value? {
        if position == Self.root { return nil }
        var reader = ByteReader(bytes, offset: position)
        let tag = try reader.readUInt8("a value tag")
        switch tag {
        case RecordCodec.Tag.null: return .null
        case RecordCodec.Tag.false: return .bool(false)
        case RecordCodec.Tag.true: return .bool(true)
        case RecordCodec.Tag.array, RecordCodec.Tag.object: return nil
        default: return try RecordCodec.readScalar(tag: tag, &reader, tagOffset: position)
        }
    }

    func object(at position: Int) throws(CodecError) -> Object? {
        if position == Self.root {
            var reader = try RecordCodec.openRecord(bytes)
            _ = try reader.readVarint()  // the count: the entries fill the rest of the record
            return try index(from: reader.offset, to: bytes.count)
        }
        var reader = ByteReader(bytes, offset: position)
        guard try reader.readUInt8("a value tag") == RecordCodec.Tag.object else { return nil }
        let length = try reader.readVarint()
        try reader.require(length, "object body")
        let end = reader.offset + length
        _ = try reader.readVarint()
        return try index(from: reader.offset, to: end)
    }

    /// The offset of field `name`'s value, or `nil`; `hint` is the index after the previous hit,
    /// where the search resumes before wrapping around.
    func lookup(_ name: String, in object: Object, hint: inout Int) -> Int? {
        var name = name
        return name.withUTF8 { target -> Int? in
            let target = UnsafeRawBufferPointer(target)
            let fields = object.fields
            let count = fields.count
            guard count > 0 else { return nil }
            var index = hint < count ? hint : 0
            for _ in 0..<count {
                let field = fields[index]
                if field.name.count == target.count,
                   UTF8Order.compare(UnsafeRawBufferPointer(rebasing: bytes[field.name]), target) == 0 {
                    hint = index + 1
                    return field.value
                }
                index = index + 1 == count ? 0 : index + 1
            }
            return nil
        }
    }

    func names(in object: Object) throws(CodecError) -> [String] {
        var names: [String] = []
        for field in object.fields {
            names.append(try RecordCodec.makeString(UnsafeRawBufferPointer(rebasing: bytes[field.name]), offset: field.name.lowerBound))
        }
        return names
    }

    func elements(at position: Int) throws(CodecError) -> [Int]? {
        if position == Self.root { return nil }
        var reader = ByteReader(bytes, offset: position)
        guard try reader.readUInt8("a value tag") == RecordCodec.Tag.array else { return nil }
        let length = try reader.readVarint()
        try reader.require(length, "array body")
        var body = ByteReader(bytes, offset: reader.offset, end: reader.offset + length)
        let count = try body.readVarint()
        guard count <= body.remaining else {
            throw CodecError(.truncated, "\(count) elements cannot fit in \(body.remaining) bytes", offset: position)
        }
        var offsets: [Int] = []
        offsets.reserveCapacity(count)
        for _ in 0..<count {
            offsets.append(body.offset)
            try RecordCodec.skipValue(&body)
        }
        return offsets
    }
}
