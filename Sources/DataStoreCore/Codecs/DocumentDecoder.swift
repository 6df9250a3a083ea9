/// Decodes `Decodable` values straight from a ``Document`` — no JSON in between.
///
/// The mirror of ``DocumentEncoder``: `Date` from a number of seconds since 1970, `Data` from
/// bytes, `URL` from a string, `Decimal` from a string of digits or a number, integers from any number with an exact integral value in range, `Double` from any
/// number. An optional property is `nil` when its field is absent *or* null.
///
/// To decode a stored record, ``RecordDecoder`` reads the bytes in place and is faster than
/// decoding the record to a ``Document`` first.
public struct DocumentDecoder: Sendable {
    /// Creates a decoder.
    public init() {}

    /// Decodes a `T` from `document`.
    ///
    /// - Throws: `DecodingError` with the coding path: `keyNotFound` for a missing field,
    ///   `valueNotFound` for an unexpected null, `typeMismatch` for a value of another type,
    ///   `dataCorrupted` for a number out of the type's range; and any error `T.init(from:)` throws.
    /// - Complexity: O(*n*) in the size of the decoded value.
    public func decode<T: Decodable>(_ type: T.Type, from document: Document) throws -> T {
        try decodeValue(type, from: .object(document))
    }

    /// Decodes a `T` from any ``Value``: the mirror of ``DocumentEncoder/encodeValue(_:)``.
    ///
    /// - Throws: See ``decode(_:from:)``.
    /// - Complexity: O(*n*) in the size of the decoded value.
    public func decodeValue<T: Decodable>(_ type: T.Type, from value: Value) throws -> T {
        let decoder = SourceDecoder(
            source: DecodingSource(bytes: UnsafeRawBufferPointer(start: nil, count: 0)),
            position: .value(value), codingPath: [])
        return try decoder.unboxSelf(type)
    }
}
