/// Where one value to decode is: in a ``Value`` tree (``DocumentDecoder``), or at the offset of
/// its tag in record bytes (``RecordDecoder``; ``RecordSource/root`` for the record itself).
///
/// One decoder serves both, so they cannot drift apart in what they accept. It is deliberately
/// not generic over the source: the containers are generic over the caller's `CodingKey` type,
/// which this module never sees, so any other generic parameter would stay unspecialised and pay
/// for runtime metadata lookups on every field.
enum DecodingPosition {
    case value(Value)
    case record(Int)
}

/// One object's fields: a document, or the entries `entries..<end` of record bytes.
enum DecodingObject {
    case document(Document)
    case record(RecordSource.Object)
}

/// The operations the decoder needs, answered from either kind of position.
struct DecodingSource {
    /// The record bytes being read; empty when decoding a ``Value`` tree.
    let bytes: UnsafeRawBufferPointer

    /// The ``Value/typeName`` of the value at `position`, for error messages.
    func typeName(at position: DecodingPosition) throws(CodecError) -> String {
        switch position {
        case .value(let value): value.typeName
        case .record(let offset): try RecordSource(bytes: bytes).typeName(at: offset)
        }
    }

    /// The value at `position` if it is not an array or object; `nil` for containers.
    @inline(__always)
    func scalar(at position: DecodingPosition) throws(CodecError) -> Value? {
        switch position {
        case .value(let value):
            switch value {
            case .array, .object: nil
            default: value
            }
        case .record(let offset): try RecordSource(bytes: bytes).scalar(at: offset)
        }
    }

    /// The object at `position`, or `nil` if it is not one.
    func object(at position: DecodingPosition) throws(CodecError) -> DecodingObject? {
        switch position {
        case .value(let value): value.objectValue.map { .document($0) }
        case .record(let offset): try RecordSource(bytes: bytes).object(at: offset).map { .record($0) }
        }
    }

    /// The position of field `name`, or `nil`.
    @inline(__always)
    func lookup(_ name: String, in object: DecodingObject) -> DecodingPosition? {
        switch object {
        case .document(let document): document[name].map { .value($0) }
        case .record(let entries): RecordSource(bytes: bytes).lookup(name, in: entries).map { .record($0) }
        }
    }

    /// Whether the value at `position` is an array or an object, so it cannot be a scalar.
    @inline(__always)
    func isContainer(at position: DecodingPosition) -> Bool {
        switch position {
        case .value(let value):
            switch value {
            case .array, .object: true
            default: false
            }
        case .record(let offset): RecordSource(bytes: bytes).isContainer(at: offset)
        }
    }

    /// The names of the object's fields.
    func names(in object: DecodingObject) throws(CodecError) -> [String] {
        switch object {
        case .document(let document): document.sortedFields.map(\.name)
        case .record(let entries): try RecordSource(bytes: bytes).names(in: entries)
        }
    }

    /// The element positions of the array at `position`, or `nil` if it is not one.
    func elements(at position: DecodingPosition) throws(CodecError) -> [DecodingPosition]? {
        switch position {
        case .value(let value): value.arrayValue.map { $0.map { .value($0) } }
        case .record(let offset): try RecordSource(bytes: bytes).elements(at: offset).map { $0.map { .record($0) } }
        }
    }
}

/// A Swift type decoded from one scalar ``Value``.
protocol DecodableScalar: Decodable {
    /// The converted value, or `nil` when `value` is of another type or out of range.
    static func convert(_ value: Value) -> Self?

    /// The value read straight from record bytes, without building a ``Value``, or `nil` when
    /// the value there is not of the kind this fast path handles (the caller then converts
    /// through ``scalar(at:)`` and ``convert(_:)``, which also report mismatches). Whatever it
    /// returns equals `convert` of the value at `position`.
    static func read(_ source: RecordSource, at position: Int) throws(CodecError) -> Self?
}

extension Bool: DecodableScalar {
    static func convert(_ value: Value) -> Bool? { value.boolValue }
    @inline(__always)
    static func read(_ source: RecordSource, at position: Int) -> Bool? { source.bool(at: position) }
}

extension String: DecodableScalar {
    static func convert(_ value: Value) -> String? { value.stringValue }
    @inline(__always)
    static func read(_ source: RecordSource, at position: Int) throws(CodecError) -> String? {
        // The non-throwing scan reads a sound string; anything else is read again to report it.
        if let string = RecordScan.string(source.bytes, at: position) { return string }
        return try source.string(at: position)
    }
}

extension Double: DecodableScalar {
    static func convert(_ value: Value) -> Double? { value.doubleValue }
    @inline(__always)
    static func read(_ source: RecordSource, at position: Int) throws(CodecError) -> Double? {
        switch try source.number(at: position) {
        case .double(let number): number
        case .int(let number): Double(number)
        case nil: nil
        }
    }
}

extension Float: DecodableScalar {
    static func convert(_ value: Value) -> Float? { value.doubleValue.map { Float($0) } }
    @inline(__always)
    static func read(_ source: RecordSource, at position: Int) throws(CodecError) -> Float? {
        try Double.read(source, at: position).map { Float($0) }
    }
}

extension DecodableScalar where Self: FixedWidthInteger {
    /// Integers accept ``Value/int(_:)`` in range, and a ``Value/double(_:)`` with an exact
    /// integral value (numbers are one class: `3.0 == 3`).
    static func convert(_ value: Value) -> Self? {
        switch value {
        case .int(let number): Self(exactly: number)
        case .double(let number): Self(exactly: number)
        default: nil
        }
    }

    @inline(__always)
    static func read(_ source: RecordSource, at position: Int) throws(CodecError) -> Self? {
        switch try source.number(at: position) {
        case .int(let number): Self(exactly: number)
        case .double(let number): Self(exactly: number)
        case nil: nil
        }
    }
}

extension Int: DecodableScalar {}
extension Int8: DecodableScalar {}
extension Int16: DecodableScalar {}
extension Int32: DecodableScalar {}
extension Int64: DecodableScalar {}
extension UInt: DecodableScalar {}
extension UInt8: DecodableScalar {}
extension UInt16: DecodableScalar {}
extension UInt32: DecodableScalar {}
extension UInt64: DecodableScalar {}
