extension RecordCodec {
    /// Reads the value at `field` — a top-level name or a dotted path (``FieldPath``) — from a
    /// record without decoding the rest: through nested objects it follows the bytes, and only an
    /// array on the way is decoded (its elements' fields are gathered as ``FieldPath`` says).
    ///
    /// A field that is not a valid path is read as a top-level name.
    /// - Returns: The value, or `nil` when the path is missing.
    /// - Throws: `CodecError` when the bytes read are truncated or corrupt.
    /// - Complexity: O(fields passed at each level), plus the size of the value (or of the array met).
    public static func value(atPath field: String, in bytes: UnsafeRawBufferPointer) throws(CodecError) -> Value? {
        guard FieldPath.needsParsing(field), let path = try? FieldPath(parsing: field) else {
            return try self.field(field, in: bytes)
        }
        let names = path.components
        if names.count == 1 { return try self.field(names[0], in: bytes) }
        var reader = try openRecord(bytes)
        guard let start = try findField(names[0], &reader) else { return nil }
        reader.offset = start
        do throws(CodecError) {
            for depth in 1..<names.count {
                let tagOffset = reader.offset
                let tag = try reader.readUInt8("a value tag")
                switch tag {
                case Tag.object:
                    var body = try openBody(&reader, depth: depth, tagOffset: tagOffset)
                    guard let next = try findField(names[depth], &body) else { return nil }
                    body.offset = next
                    reader = body
                case Tag.array:
                    reader.offset = tagOffset
                    return FieldPath.follow(try readValue(&reader, depth: depth), names[depth...])
                default:
                    return nil
                }
            }
            return try readValue(&reader, depth: names.count)
        } catch {
            throw error.inField(field)
        }
    }

    /// Reads the value at `field` from a record held in an array.
    /// - Throws: See ``value(atPath:in:)-(_,UnsafeRawBufferPointer)``.
    public static func value(atPath field: String, in bytes: [UInt8]) throws(CodecError) -> Value? {
        try withBytes(bytes) { buffer throws(CodecError) in try value(atPath: field, in: buffer) }
    }
}
