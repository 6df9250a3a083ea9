extension RecordCodec {
    /// Reads one top-level field of a record without decoding the others.
    ///
    /// Names are read and compared; other values are skipped by their lengths, and the scan stops
    /// as soon as a name sorts after `name` (fields are sorted). The bytes that are read — names,
    /// and the value returned — are validated; skipped values are only bounds-checked, so a record
    /// that ``decode(_:)-(UnsafeRawBufferPointer)`` rejects may still answer here.
    ///
    /// - Parameters:
    ///   - name: The field name, matched by its exact UTF-8 bytes.
    ///   - bytes: A record.
    /// - Returns: The field's value, or `nil` when the record has no such field.
    /// - Throws: `CodecError` when the bytes read are truncated or corrupt.
    /// - Complexity: O(*f*) in the number of fields before `name`, plus the size of its value.
    package static func field(_ name: String, in bytes: UnsafeRawBufferPointer) throws(CodecError) -> Value? {
        var reader = try openRecord(bytes)
        guard let valueOffset = try findField(name, &reader) else { return nil }
        reader.offset = valueOffset
        do throws(CodecError) {
            return try readValue(&reader, depth: 1)
        } catch {
            throw error.inField(name)
        }
    }

    /// Reads one top-level field of a record held in an array.
    ///
    /// - Throws: See ``field(_:in:)-(_,UnsafeRawBufferPointer)``.
    /// - Complexity: See ``field(_:in:)-(_,UnsafeRawBufferPointer)``.
    package static func field(_ name: String, in bytes: [UInt8]) throws(CodecError) -> Value? {
        try withBytes(bytes) { buffer throws(CodecError) in try field(name, in: buffer) }
    }

    /// Scans the entries at `reader` (positioned at the count) for `name` and returns the offset
    /// of its value's tag, or `nil`.
    static func findField(_ name: String, _ reader: inout ByteReader) throws(CodecError) -> Int? {
        let count = try reader.readVarint()
        return try UTF8Order.withBytes(of: name) { target throws(CodecError) -> Int? in
            for _ in 0..<count {
                let nameLength = try reader.readVarint()
                let candidate = try reader.readBytes(nameLength, "field name")
                let order = UTF8Order.compare(candidate, target)
                if order == 0 { return reader.offset }
                if order > 0 { return nil }
                try skipValue(&reader)
            }
            return nil
        }
    }

    /// Moves past one tagged value, checking only that its declared size is present.
    ///
    /// - Complexity: O(1): every value's size is known from its tag and at most one varint.
    @inline(__always)
    static func skipValue(_ reader: inout ByteReader) throws(CodecError) {
        let tagOffset = reader.offset
        let tag = try reader.readUInt8("a value tag")
        switch tag {
        case Tag.null, Tag.false, Tag.true: return
        case Tag.int8: try reader.skip(1, "an int8")
        case Tag.int16: try reader.skip(2, "an int16")
        case Tag.int32: try reader.skip(4, "an int32")
        case Tag.int64, Tag.double: try reader.skip(8, "an 8-byte number")
        case Tag.string, Tag.bytes, Tag.array, Tag.object:
            let length = try reader.readVarint()
            try reader.skip(length, "a value body")
        default:
            throw CodecError(.corrupt, "reserved value tag 0x\(String(tag, radix: 16))", offset: tagOffset)
        }
    }
}
