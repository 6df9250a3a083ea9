extension KeyCodec {
    /// One decoded key component.
    package struct Component: Sendable, Hashable, CustomStringConvertible {
        /// The value; for a truncated component, the part that was kept (see ``isTruncated``).
        package var value: Value
        /// Whether the component was written descending (its first byte is 0x80 or above).
        package var isDescending: Bool
        /// Whether the component was cut by ``KeyCodec/appendTruncating(_:to:descending:maxBytes:)``:
        /// ``value`` is then only a prefix — a string's or bytes' leading bytes (a string's
        /// incomplete final UTF-8 sequence dropped), or an array or object with its leading
        /// elements — and the stored document must be consulted for the real value.
        package var isTruncated: Bool

        /// Creates a component.
        package init(value: Value, isDescending: Bool = false, isTruncated: Bool = false) {
            self.value = value
            self.isDescending = isDescending
            self.isTruncated = isTruncated
        }

        /// The value, followed by `desc` and `truncated` when they apply.
        package var description: String {
            value.description + (isDescending ? " desc" : "") + (isTruncated ? " truncated" : "")
        }
    }

    /// Decodes every component of a key, reporting each one's direction and truncation.
    ///
    /// Directions need not be supplied: ascending components start below 0x80 and descending ones
    /// at or above it, so keys describe themselves. Use ``decode(_:descending:)`` to also check them.
    ///
    /// - Throws: `CodecError` (`.truncated`, `.corrupt`, `.tooDeep`) for bytes this codec cannot
    ///   have written, including non-canonical forms such as `-0.0` or an unescaped zero.
    /// - Complexity: O(*n*) in the key's length.
    package static func decodeComponents(_ bytes: UnsafeRawBufferPointer) throws(CodecError) -> [Component] {
        var reader = KeyReader(bytes: bytes)
        var components: [Component] = []
        while !reader.isAtEnd {
            let first = bytes[reader.offset]
            let descending = first >= Tag.firstDescending
            reader.mask = descending ? 0xFF : 0x00
            let (value, truncated) = try reader.readValue(depth: 0)
            components.append(Component(value: value, isDescending: descending, isTruncated: truncated))
        }
        return components
    }

    /// Decodes every component of a key held in an array.
    ///
    /// - Throws: See ``decodeComponents(_:)-(UnsafeRawBufferPointer)``.
    /// - Complexity: O(*n*) in the key's length.
    package static func decodeComponents(_ bytes: [UInt8]) throws(CodecError) -> [Component] {
        try RecordCodec.withBytes(bytes) { buffer throws(CodecError) in try decodeComponents(buffer) }
    }

    /// Decodes the values of a key, whatever their directions.
    ///
    /// - Throws: See ``decodeComponents(_:)-(UnsafeRawBufferPointer)``.
    /// - Complexity: O(*n*) in the key's length.
    package static func decode(_ bytes: [UInt8]) throws(CodecError) -> [Value] {
        try decodeComponents(bytes).map(\.value)
    }

    /// Decodes the values of a key whose components must have the given directions.
    ///
    /// - Parameters:
    ///   - bytes: The key.
    ///   - descending: One flag per component, `true` for a descending component, as the index
    ///     that wrote the key declares them.
    /// - Throws: `CodecError.corrupt` when the number or the directions of the components differ
    ///   from `descending`, and see ``decodeComponents(_:)-(UnsafeRawBufferPointer)``.
    /// - Complexity: O(*n*) in the key's length.
    package static func decode(_ bytes: [UInt8], descending: [Bool]) throws(CodecError) -> [Value] {
        let components = try decodeComponents(bytes)
        guard components.map(\.isDescending) == descending else {
            throw CodecError(
                .corrupt,
                "key has directions \(components.map { $0.isDescending ? "desc" : "asc" }), expected \(descending.map { $0 ? "desc" : "asc" })"
            )
        }
        return components.map(\.value)
    }
}
