#if canImport(FoundationEssentials)
import FoundationEssentials // Date, Data, URL and Decimal only; the lighter half of Foundation on Linux
#else
import Foundation
#endif

/// Encodes `Encodable` values straight into a ``Document`` — no JSON in between.
///
/// Nested structs become ``Value/object(_:)``, arrays ``Value/array(_:)``, `Date` a
/// ``Value/double(_:)`` of seconds since 1970, `Data` ``Value/bytes(_:)``, `URL` a
/// ``Value/string(_:)`` of its absolute string, `Decimal` a ``Value/string(_:)`` of its exact
/// digits (a range over it compares strings), `UUID` its `uuidString` (its own `Codable` form). A `nil` optional
/// property is left out (the synthesized `encodeIfPresent` skips it); an explicit `encodeNil`
/// writes ``Value/null``.
///
/// ```swift
/// let document = try DocumentEncoder().encode(message)
/// let record = try RecordCodec.encode(document)
/// ```
public struct DocumentEncoder: Sendable {
    /// Creates an encoder.
    public init() {}

    /// Encodes `value`, which must encode as a keyed container (a struct or class), into a document.
    ///
    /// - Throws: `EncodingError.invalidValue` when the value does not encode as an object or
    ///   encodes an unsigned integer above `Int64.max`; `CodecError.tooDeep`, naming the field
    ///   path, when it nests deeper than `RecordCodec/maxDepth` (refused as the container one
    ///   level too deep is asked for, so the encoding never recurses further); and any error
    ///   `value.encode(to:)` throws.
    /// - Complexity: O(*n*) in the size of the encoded value.
    public func encode<T: Encodable>(_ value: T) throws -> Document {
        let encoded = try encodeValue(value)
        guard case .object(let document) = encoded else {
            throw EncodingError.invalidValue(
                value,
                .init(
                    codingPath: [],
                    debugDescription:
                        "a document needs a keyed (object) value; \(T.self) encoded as \(encoded.typeName)"))
        }
        return document
    }

    /// Encodes any `Encodable` value into a ``Value``.
    ///
    /// - Throws: See ``encode(_:)``.
    /// - Complexity: O(*n*) in the size of the encoded value.
    public func encodeValue<T: Encodable>(_ value: T) throws -> Value {
        try ValueEncoder.box(value, codingPath: [], level: 1, nesting: Nesting()).finish()
    }
}

/// Where an encoded value ends up: a finished value, or a container still being filled.
/// Containers are classes because Codable hands out several containers that must write into
/// the same place.
private enum Slot {
    case value(Value)
    case object(ObjectBox)
    case array(ArrayBox)
    case encoder(ValueEncoder) // from superEncoder: filled after the slot is taken

    func finish() -> Value {
        switch self {
        case .value(let value): value
        case .object(let box): .object(Document(box.fields.mapValues { $0.finish() }))
        case .array(let box): .array(box.elements.map { $0.finish() })
        case .encoder(let encoder): encoder.slot?.finish() ?? .object(Document())
        }
    }
}

/// What one encoding shares: the first container refused for nesting too deep. Containers are
/// handed out by non-throwing calls, so the refusal is recorded here and thrown by the next
/// throwing call (every nested `encode`, and the end of each value).
private final class Nesting {
    var failure: CodecError?

    /// Whether a container at `level` may be made; records the failure when it may not.
    func allows(level: Int, codingPath: [any CodingKey]) -> Bool {
        guard level > RecordCodec.maxDepth else { return true }
        if failure == nil {
            failure = CodecError(
                .tooDeep, "containers nest deeper than \(RecordCodec.maxDepth) levels", codingPath: codingPath)
        }
        return false
    }

    /// Throws the recorded failure, if any.
    func check() throws(CodecError) {
        if let failure { throw failure }
    }
}

private final class ObjectBox {
    /// Room for a typical model's fields from the start: growing a dictionary one field at a
    /// time rehashes it at each doubling, which cost more than the fields' own hashing.
    var fields = [String: Slot](minimumCapacity: 12)
}

private final class ArrayBox {
    var elements: [Slot] = []
}

private struct IndexKey: CodingKey {
    var stringValue: String { "Index \(index)" }
    var intValue: Int? { index }
    let index: Int
    init(_ index: Int) { self.index = index }
    init?(stringValue: String) { nil }
    init?(intValue: Int) { index = intValue }
}

private final class ValueEncoder: Encoder {
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }
    var slot: Slot?
    /// The level of the container this value makes, if it makes one (the top value's is 1).
    let level: Int
    let nesting: Nesting

    init(codingPath: [any CodingKey], level: Int, nesting: Nesting) {
        self.codingPath = codingPath
        self.level = level
        self.nesting = nesting
    }

    /// Encodes one value into a slot, taking `Date` and `Data` on the way.
    static func box<T: Encodable>(_ value: T, codingPath: [any CodingKey], level: Int, nesting: Nesting) throws -> Slot
    {
        if let date = value as? Date { return .value(.double(date.timeIntervalSince1970)) }
        if let data = value as? Data { return .value(.bytes(Array(data))) }
        // Their own Codable forms are keyed containers of internal fields; users expect the value.
        if T.self == URL.self, let url = value as? URL { return .value(.string(url.absoluteString)) }
        if T.self == Decimal.self, let decimal = value as? Decimal {
            do { return .value(try decimal.documentValue) } catch {
                throw EncodingError.invalidValue(
                    decimal, .init(codingPath: codingPath, debugDescription: error.message, underlyingError: error))
            }
        }
        // An exact type test: `as? [UInt8]` would also match an empty `[Int]`.
        if T.self == [UInt8].self, let bytes = value as? [UInt8] { return .value(.bytes(bytes)) }
        try nesting.check()
        let encoder = ValueEncoder(codingPath: codingPath, level: level, nesting: nesting)
        try value.encode(to: encoder)
        try nesting.check()
        return encoder.slot ?? .value(.object(Document()))
    }

    static func integer<I: BinaryInteger>(_ value: I, codingPath: [any CodingKey]) throws -> Value {
        guard let exact = Int64(exactly: value) else {
            throw EncodingError.invalidValue(
                value, .init(codingPath: codingPath, debugDescription: "\(value) exceeds Int64.max"))
        }
        return .int(exact)
    }

    /// A too-deep container writes into a box that nothing holds, so no deeper tree is built.
    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        let box: ObjectBox
        if case .object(let existing) = slot {
            box = existing
        } else {
            box = ObjectBox()
            if nesting.allows(level: level, codingPath: codingPath) { slot = .object(box) }
        }
        return KeyedEncodingContainer(
            KeyedContainer<Key>(box: box, codingPath: codingPath, level: level, nesting: nesting))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        let box: ArrayBox
        if case .array(let existing) = slot {
            box = existing
        } else {
            box = ArrayBox()
            if nesting.allows(level: level, codingPath: codingPath) { slot = .array(box) }
        }
        return UnkeyedContainer(box: box, codingPath: codingPath, level: level, nesting: nesting)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        SingleContainer(encoder: self)
    }
}

private struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let box: ObjectBox
    let codingPath: [any CodingKey]
    /// This container's level; the values in it make containers one level deeper.
    let level: Int
    let nesting: Nesting

    private func set(_ value: Value, _ key: Key) { box.fields[key.stringValue] = .value(value) }

    mutating func encodeNil(forKey key: Key) { set(.null, key) }
    mutating func encode(_ value: Bool, forKey key: Key) { set(.bool(value), key) }
    mutating func encode(_ value: String, forKey key: Key) { set(.string(value), key) }
    mutating func encode(_ value: Double, forKey key: Key) { set(.double(value), key) }
    mutating func encode(_ value: Float, forKey key: Key) { set(.double(Double(value)), key) }
    mutating func encode(_ value: Int, forKey key: Key) { set(.int(Int64(value)), key) }
    mutating func encode(_ value: Int8, forKey key: Key) { set(.int(Int64(value)), key) }
    mutating func encode(_ value: Int16, forKey key: Key) { set(.int(Int64(value)), key) }
    mutating func encode(_ value: Int32, forKey key: Key) { set(.int(Int64(value)), key) }
    mutating func encode(_ value: Int64, forKey key: Key) { set(.int(value), key) }
    mutating func encode(_ value: UInt, forKey key: Key) throws {
        set(try ValueEncoder.integer(value, codingPath: codingPath + [key]), key)
    }
    mutating func encode(_ value: UInt8, forKey key: Key) { set(.int(Int64(value)), key) }
    mutating func encode(_ value: UInt16, forKey key: Key) { set(.int(Int64(value)), key) }
    mutating func encode(_ value: UInt32, forKey key: Key) { set(.int(Int64(value)), key) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws {
        set(try ValueEncoder.integer(value, codingPath: codingPath + [key]), key)
    }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        box.fields[key.stringValue] = try ValueEncoder.box(
            value, codingPath: codingPath + [key], level: level + 1, nesting: nesting)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key)
        -> KeyedEncodingContainer<NestedKey>
    {
        let nested = ObjectBox()
        let path = codingPath + [key]
        if nesting.allows(level: level + 1, codingPath: path) { box.fields[key.stringValue] = .object(nested) }
        return KeyedEncodingContainer(
            KeyedContainer<NestedKey>(box: nested, codingPath: path, level: level + 1, nesting: nesting))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let nested = ArrayBox()
        let path = codingPath + [key]
        if nesting.allows(level: level + 1, codingPath: path) { box.fields[key.stringValue] = .array(nested) }
        return UnkeyedContainer(box: nested, codingPath: path, level: level + 1, nesting: nesting)
    }

    mutating func superEncoder() -> any Encoder { superEncoder(named: "super", key: nil) }

    mutating func superEncoder(forKey key: Key) -> any Encoder { superEncoder(named: key.stringValue, key: key) }

    private func superEncoder(named name: String, key: Key?) -> any Encoder {
        let encoder = ValueEncoder(
            codingPath: codingPath + (key.map { [$0] } ?? []), level: level + 1, nesting: nesting)
        box.fields[name] = .encoder(encoder)
        return encoder
    }
}

private struct UnkeyedContainer: UnkeyedEncodingContainer {
    let box: ArrayBox
    let codingPath: [any CodingKey]
    /// This container's level; the values in it make containers one level deeper.
    let level: Int
    let nesting: Nesting
    var count: Int { box.elements.count }

    private var nextPath: [any CodingKey] { codingPath + [IndexKey(box.elements.count)] }

    mutating func encodeNil() { box.elements.append(.value(.null)) }
    mutating func encode(_ value: Bool) { box.elements.append(.value(.bool(value))) }
    mutating func encode(_ value: String) { box.elements.append(.value(.string(value))) }
    mutating func encode(_ value: Double) { box.elements.append(.value(.double(value))) }
    mutating func encode(_ value: Float) { box.elements.append(.value(.double(Double(value)))) }
    mutating func encode(_ value: Int) { box.elements.append(.value(.int(Int64(value)))) }
    mutating func encode(_ value: Int8) { box.elements.append(.value(.int(Int64(value)))) }
    mutating func encode(_ value: Int16) { box.elements.append(.value(.int(Int64(value)))) }
    mutating func encode(_ value: Int32) { box.elements.append(.value(.int(Int64(value)))) }
    mutating func encode(_ value: Int64) { box.elements.append(.value(.int(value))) }
    mutating func encode(_ value: UInt) throws {
        box.elements.append(.value(try ValueEncoder.integer(value, codingPath: nextPath)))
    }
    mutating func encode(_ value: UInt8) { box.elements.append(.value(.int(Int64(value)))) }
    mutating func encode(_ value: UInt16) { box.elements.append(.value(.int(Int64(value)))) }
    mutating func encode(_ value: UInt32) { box.elements.append(.value(.int(Int64(value)))) }
    mutating func encode(_ value: UInt64) throws {
        box.elements.append(.value(try ValueEncoder.integer(value, codingPath: nextPath)))
    }

    mutating func encode<T: Encodable>(_ value: T) throws {
        box.elements.append(try ValueEncoder.box(value, codingPath: nextPath, level: level + 1, nesting: nesting))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<
        NestedKey
    > {
        let nested = ObjectBox()
        let path = nextPath
        if nesting.allows(level: level + 1, codingPath: path) { box.elements.append(.object(nested)) }
        return KeyedEncodingContainer(
            KeyedContainer<NestedKey>(box: nested, codingPath: path, level: level + 1, nesting: nesting))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let nested = ArrayBox()
        let path = nextPath
        if nesting.allows(level: level + 1, codingPath: path) { box.elements.append(.array(nested)) }
        return UnkeyedContainer(box: nested, codingPath: path, level: level + 1, nesting: nesting)
    }

    mutating func superEncoder() -> any Encoder {
        let encoder = ValueEncoder(codingPath: nextPath, level: level + 1, nesting: nesting)
        box.elements.append(.encoder(encoder))
        return encoder
    }
}

private struct SingleContainer: SingleValueEncodingContainer {
    let encoder: ValueEncoder
    var codingPath: [any CodingKey] { encoder.codingPath }

    private func set(_ value: Value) { encoder.slot = .value(value) }

    mutating func encodeNil() { set(.null) }
    mutating func encode(_ value: Bool) { set(.bool(value)) }
    mutating func encode(_ value: String) { set(.string(value)) }
    mutating func encode(_ value: Double) { set(.double(value)) }
    mutating func encode(_ value: Float) { set(.double(Double(value))) }
    mutating func encode(_ value: Int) { set(.int(Int64(value))) }
    mutating func encode(_ value: Int8) { set(.int(Int64(value))) }
    mutating func encode(_ value: Int16) { set(.int(Int64(value))) }
    mutating func encode(_ value: Int32) { set(.int(Int64(value))) }
    mutating func encode(_ value: Int64) { set(.int(value)) }
    mutating func encode(_ value: UInt) throws { set(try ValueEncoder.integer(value, codingPath: codingPath)) }
    mutating func encode(_ value: UInt8) { set(.int(Int64(value))) }
    mutating func encode(_ value: UInt16) { set(.int(Int64(value))) }
    mutating func encode(_ value: UInt32) { set(.int(Int64(value))) }
    mutating func encode(_ value: UInt64) throws { set(try ValueEncoder.integer(value, codingPath: codingPath)) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        encoder.slot = try ValueEncoder.box(
            value, codingPath: codingPath, level: encoder.level, nesting: encoder.nesting)
    }
}
