/// How ``SourceDecoder`` decodes a type without calling its own `init(from:)`.
enum SpecialDecoding {
    /// A `Date`, from a number of seconds since 1970.
    case date
    /// A `Data`, from bytes.
    case data
    /// A `URL` or `Decimal`, from a string (or, for `Decimal`, a number): ``ValueConvertible``.
    case convertible
    /// One of the ``DecodableScalar`` types, read straight from the value.
    case scalar(any DecodableScalar.Type)
    /// A `[UInt8]` stored as bytes (not as an array of numbers): these.
    case bytes([UInt8])
}
