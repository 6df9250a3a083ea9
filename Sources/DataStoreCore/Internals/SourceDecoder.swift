#if canImport(FoundationEssentials)
import FoundationEssentials // Date, Data, URL and Decimal only
#else
import Foundation
#endif

/// The `Decoder` over a ``DecodingSource``, for both ``DocumentDecoder`` and ``RecordDecoder``. It is also its own single-value container, which
/// saves an allocation per scalar.
final class SourceDecoder: Decoder, SingleValueDecodingContainer {
    // `source`, `index` and `objectError` change only when a thread's reusable decoder starts on
    // its next record (``restart(on:)``), never while a decode reads them: unchecked, so that
    // reading them costs no dynamic exclusivity check.
    @exclusivity(unchecked) private(set) var source: DecodingSource
    let position: DecodingPosition
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }
    /// The level of the value at ``position`` if it is an array or an object (the top value's
    /// is 1); a decoder is never made for a container beyond ``RecordCodec/maxDepth``.
    let level: Int
    /// Where the fields of the record object at ``position`` are, for the keyed containers' hot
    /// path (``field(_:_:key:)``): inline, so no allocation. ``RecordFieldIndex/unavailable()``
    /// for document positions, non-objects, and objects the fast index does not handle.
    @exclusivity(unchecked) private(set) var index: RecordFieldIndex
    /// Why the object at ``position`` could not be indexed, thrown when a container is asked for.
    @exclusivity(unchecked) private(set) var objectError: CodecError?
    /// ``object``, once built.
    private var builtObject: DecodingObject?
    /// Whether ``builtObject`` is set (it may be `nil`: no object there).
    private var isObjectBuilt: Bool
    /// Whether this is a thread's top-level record decoder, reused from record to record
    /// (``ThreadRecordDecoder``), which keeps the keyed container it last handed out.
    private let isReusable: Bool
    /// The keyed containers a reusable decoder hands out again; changed only by
    /// ``container(keyedBy:)`` and ``forgetReusedContainers()``, never while read, so unchecked too.
    @exclusivity(unchecked) private var reusedContainers = ReusedContainers()

    init(source: DecodingSource, position: DecodingPosition, codingPath: [any CodingKey], level: Int = 1) {
        self.source = source
        self.position = position
        self.codingPath = codingPath
        self.level = level
        index = .unavailable()
        (builtObject, isObjectBuilt, objectError, isReusable) = (nil, true, nil, false)
        prepare()
    }

    /// A top-level record decoder that ``restart(on:)`` points at each record in turn.
    init(reusable: ()) {
        source = DecodingSource(bytes: UnsafeRawBufferPointer(start: nil, count: 0))
        position = .record(RecordSource.root)
        codingPath = []
        level = 1
        index = .unavailable()
        (builtObject, isObjectBuilt, objectError, isReusable) = (nil, true, nil, true)
    }

    /// Points a reusable decoder at the record `bytes`, as a new decoder of them would be.
    func restart(on bytes: UnsafeRawBufferPointer) {
        source = DecodingSource(bytes: bytes)
        index = .unavailable()
        (builtObject, isObjectBuilt, objectError) = (nil, true, nil)
        prepare()
    }

    /// Drops the keyed containers a reusable decoder keeps, which refer back to the decoder.
    func forgetReusedContainers() {
        reusedContainers.removeAll()
    }

    /// Indexes the object at ``position``, or notes why there is none.
    private func prepare() {
        switch position {
        case .value(let value):
            builtObject = value.objectValue.map { .document($0) }
        case .record(let offset):
            let record = RecordSource(bytes: source.bytes)
            guard record.isObject(at: offset) else { return }
            index =
                offset == RecordSource.root
                ? RecordFieldIndex(record: source.bytes) : RecordFieldIndex(object: source.bytes, at: offset)
            if index.isAvailable {
                // The entries are sound (checked while indexing); the general table is built
                // only if a path other than the scalar fast path asks for it.
                isObjectBuilt = false
                return
            }
            do throws(CodecError) {
                builtObject = try record.object(at: offset).map { .record($0) }
            } catch {
                objectError = error
            }
        }
    }

    /// The object at ``position``, indexed in full, so that its keyed containers hold nothing
    /// but this decoder (one reference: the standard library's container box copies the
    /// container on every call); `nil` when the position holds no object or its entries are
    /// damaged (``objectError``).
    var object: DecodingObject? {
        if !isObjectBuilt {
            if case .record(let offset) = position {
                builtObject = (try? RecordSource(bytes: source.bytes).object(at: offset))?.map { .record($0) }
            }
            isObjectBuilt = true
        }
        return builtObject
    }

    // MARK: Unboxing, shared by every container

    /// Decodes any `Decodable` at `position`, a value in this decoder's container: scalars
    /// directly, `Date` from seconds since 1970, `Data` from bytes, everything else through its
    /// own `init(from:)`.
    func unbox<T: Decodable>(_ type: T.Type, at position: DecodingPosition, path: @autoclosure () -> [any CodingKey])
        throws -> T
    {
        if let special = try specialDecoding(of: T.self, at: position, path: path()) {
            return try unboxSpecial(type, special, at: position, path: path())
        }
        return try T(from: child(at: position, codingPath: path()))
    }

    /// A decoder for the value at `position` in this decoder's container.
    /// - Throws: `DecodingError.dataCorrupted` with `CodecError.tooDeep` when the value is a
    ///   container beyond ``RecordCodec/maxDepth``: checked before decoding goes one level deeper,
    ///   so no input nests the decoding (and the stack) further.
    func child(at position: DecodingPosition, codingPath: [any CodingKey]) throws -> SourceDecoder {
        guard level < RecordCodec.maxDepth || !source.isContainer(at: position) else {
            let error = CodecError(
                .tooDeep, "arrays and objects nest deeper than \(RecordCodec.maxDepth) levels", codingPath: codingPath)
            throw DecodingError.dataCorrupted(
                .init(codingPath: codingPath, debugDescription: error.description, underlyingError: error))
        }
        return SourceDecoder(source: source, position: position, codingPath: codingPath, level: level + 1)
    }

    /// Decodes a `T` at this decoder's own position, as ``unbox(_:at:path:)`` does, with this
    /// decoder as the `Decoder` (the top level of ``RecordDecoder`` and ``DocumentDecoder``).
    func unboxSelf<T: Decodable>(_ type: T.Type) throws -> T {
        if let special = try specialDecoding(of: T.self, at: position, path: codingPath) {
            return try unboxSpecial(type, special, at: position, path: codingPath)
        }
        return try T(from: self)
    }

    /// How `type` is decoded at `position` when not through its own `init(from:)`; `nil` for
    /// every other type.
    ///
    /// Not generic, so that asking costs no generic-metadata lookup (a `T?` of the caller's
    /// type would, on every document, where the caller's type is unspecialized). An array or
    /// object can only be decoded through `init(from:)`: a scalar type there fails in its
    /// single-value container with the same error ``unboxScalar(_:at:path:)`` would throw. So
    /// the dynamic cast to ``DecodableScalar`` (a conformance lookup, the most expensive step
    /// here) is only made for scalar positions.
    @inline(__always)
    private func specialDecoding(
        of type: Any.Type, at position: DecodingPosition, path: @autoclosure () -> [any CodingKey]
    ) throws -> SpecialDecoding? {
        if type == Date.self { return .date }
        if type == Data.self { return .data }
        // After the container test: a URL or Decimal stored by its own keyed form still decodes.
        if source.isContainer(at: position) { return nil }
        if type == URL.self || type == Decimal.self { return .convertible }
        if let scalarType = type as? any DecodableScalar.Type { return .scalar(scalarType) }
        if type == [UInt8].self,
            let value = try codec({ () throws(CodecError) in try source.scalar(at: position) }, path: path()),
            case .bytes(let bytes) = value
        {
            return .bytes(bytes)
        }
        return nil
    }

    /// Decodes a `T` the way ``specialDecoding(of:at:path:)`` found for it.
    private func unboxSpecial<T: Decodable>(
        _ type: T.Type, _ special: SpecialDecoding, at position: DecodingPosition,
        path: @autoclosure () -> [any CodingKey]
    ) throws -> T {
        switch special {
        case .date:
            let seconds = try unboxScalar(Double.self, at: position, path: path())
            return Date(timeIntervalSince1970: seconds) as! T
        case .data:
            return Data(try unboxBytes(at: position, path: path())) as! T
        case .convertible:
            return try unboxConvertible(type, at: position, path: path())
        case .scalar(let scalarType):
            return try unboxScalar(scalarType, at: position, path: path()) as! T
        case .bytes(let bytes):
            return bytes as! T
        }
    }

    /// A `URL` from its string, a `Decimal` from its digits or a number (``ValueConvertible``).
    private func unboxConvertible<T>(_ type: T.Type, at position: DecodingPosition, path: [any CodingKey]) throws -> T {
        let value = try codec({ () throws(CodecError) in try source.scalar(at: position) }, path: path)
        let converted: Any? =
            T.self == URL.self
            ? value.flatMap { URL(documentValue: $0) } : value.flatMap { Decimal(documentValue: $0) }
        guard let converted = converted as? T else {
            throw DecodingError.typeMismatch(
                T.self,
                .init(
                    codingPath: path,
                    debugDescription:
                        "expected a \(T.self) (stored as a string), found \(value.map(\.typeName) ?? "nothing")"))
        }
        return converted
    }

    func unboxScalar<T: DecodableScalar>(
        _ type: T.Type, at position: DecodingPosition, path: @autoclosure () -> [any CodingKey]
    ) throws -> T {
        if case .record(let offset) = position,
            let result = try codec(
                { () throws(CodecError) in try T.read(RecordSource(bytes: source.bytes), at: offset) }, path: path())
        {
            return result
        }
        let value = try codec({ () throws(CodecError) in try source.scalar(at: position) }, path: path())
        if let value, let result = T.convert(value) { return result }
        throw mismatch(T.self, value: value, at: position, path: path())
    }

    private func unboxBytes(at position: DecodingPosition, path: [any CodingKey]) throws -> [UInt8] {
        let value = try codec({ () throws(CodecError) in try source.scalar(at: position) }, path: path)
        if case .bytes(let bytes)? = value { return bytes }
        throw mismatch(Data.self, value: value, at: position, path: path)
    }

    /// Decodes the scalar field `name` of `object`: the keyed containers' hot path. Not generic
    /// over the `CodingKey` type, so it is compiled once per scalar type, fully optimised, and
    /// reads record bytes straight into `T` (see ``DecodableScalar/read(_:at:)``).
    func field<T: DecodableScalar>(_ type: T.Type, _ name: String, key: () -> any CodingKey) throws -> T {
        switch index.field(name, in: source.bytes) {
        case .found(let offset):
            if let result = try codec(
                { () throws(CodecError) in try T.read(RecordSource(bytes: source.bytes), at: offset) },
                path: codingPath + [key()])
            {
                return result
            }
            return try unboxScalar(type, at: .record(offset), path: codingPath + [key()])
        case .absent:
            throw keyNotFound(key())
        case .general:
            guard let object, let position = source.lookup(name, in: object) else { throw keyNotFound(key()) }
            return try unboxScalar(type, at: position, path: codingPath + [key()])
        }
    }

    /// Decodes the scalar field `name` of `object`, or `nil` when it is absent or null.
    func fieldIfPresent<T: DecodableScalar>(_ type: T.Type, _ name: String, key: () -> any CodingKey) throws -> T? {
        switch index.field(name, in: source.bytes) {
        case .found(let offset):
            if let result = try codec(
                { () throws(CodecError) in try T.read(RecordSource(bytes: source.bytes), at: offset) },
                path: codingPath + [key()])
            {
                return result
            }
            return try unboxScalarIfPresent(type, at: .record(offset), path: codingPath + [key()])
        case .absent:
            return nil
        case .general:
            guard let object else { return nil }
            return try unboxScalarIfPresent(type, at: source.lookup(name, in: object), path: codingPath + [key()])
        }
    }

    /// Finds field `name` in this decoder's object.
    func find(_ name: String) -> DecodingPosition? {
        switch index.field(name, in: source.bytes) {
        case .found(let offset): return .record(offset)
        case .absent: return nil
        case .general:
            guard let object else { return nil }
            return source.lookup(name, in: object)
        }
    }

    func keyNotFound(_ key: any CodingKey) -> DecodingError {
        .keyNotFound(key, .init(codingPath: codingPath, debugDescription: "no field '\(key.stringValue)'"))
    }

    /// One lookup for absent, null or present — the default `decodeIfPresent` costs three.
    func unboxScalarIfPresent<T: DecodableScalar>(
        _ type: T.Type, at position: DecodingPosition?, path: @autoclosure () -> [any CodingKey]
    ) throws -> T? {
        guard let position else { return nil }
        let value = try codec({ () throws(CodecError) in try source.scalar(at: position) }, path: path())
        if let value, let result = T.convert(value) { return result }
        if value?.isNull == true { return nil }
        throw mismatch(T.self, value: value, at: position, path: path())
    }

    func isNull(at position: DecodingPosition) throws -> Bool {
        let value = try codec({ () throws(CodecError) in try source.scalar(at: position) }, path: codingPath)
        return value?.isNull ?? false
    }

    /// The right `DecodingError` for a value that is not a `T`.
    func mismatch<T>(_ type: T.Type, value: Value?, at position: DecodingPosition, path: [any CodingKey])
        -> DecodingError
    {
        if let value {
            if value.isNull {
                return .valueNotFound(
                    T.self, .init(codingPath: path, debugDescription: "expected \(T.self), found null"))
            }
            if value.isNumber && (T.self as? any FixedWidthInteger.Type) != nil {
                return .dataCorrupted(
                    .init(codingPath: path, debugDescription: "number \(value) does not fit \(T.self)"))
            }
            return .typeMismatch(
                T.self, .init(codingPath: path, debugDescription: "expected \(T.self), found \(value.typeName)"))
        }
        let name = (try? source.typeName(at: position)) ?? "an unreadable value"
        return .typeMismatch(T.self, .init(codingPath: path, debugDescription: "expected \(T.self), found \(name)"))
    }

    /// Runs a source operation, turning a `CodecError` (damaged bytes) into a `DecodingError`.
    func codec<R>(_ body: () throws(CodecError) -> R, path: @autoclosure () -> [any CodingKey]) throws -> R {
        do {
            return try body()
        } catch {
            throw DecodingError.dataCorrupted(
                .init(codingPath: path(), debugDescription: error.description, underlyingError: error))
        }
    }

    // MARK: Decoder

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        if let objectError {
            throw DecodingError.dataCorrupted(
                .init(codingPath: codingPath, debugDescription: objectError.description, underlyingError: objectError))
        }
        guard index.isAvailable || object != nil else {
            // Not an object: read it again the general way, to report damaged bytes as such.
            _ = try codec({ () throws(CodecError) in try source.object(at: position) }, path: codingPath)
            throw mismatchContainer([String: Any].self)
        }
        guard isReusable else { return KeyedDecodingContainer(SourceKeyedContainer<Key>(decoder: self)) }
        // Making a container looks up the runtime metadata of the container, its box and its
        // conformance, which costs more than decoding a small record's fields: a reusable decoder
        // hands the same one out again for the same key type.
        if let holder = reusedContainers.holder(for: Key.self) {
            return unsafeDowncast(holder, to: ReusedKeyedContainer<Key>.self).container
        }
        let container = KeyedDecodingContainer(SourceKeyedContainer<Key>(decoder: self))
        reusedContainers.keep(container)
        return container
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard let elements = try codec({ () throws(CodecError) in try source.elements(at: position) }, path: codingPath)
        else {
            throw mismatchContainer([Any].self)
        }
        return SourceUnkeyedContainer(decoder: self, elements: elements)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

    private func mismatchContainer<T>(_ type: T.Type) -> DecodingError {
        let name = (try? source.typeName(at: position)) ?? "an unreadable value"
        if name == "null" {
            return .valueNotFound(
                T.self, .init(codingPath: codingPath, debugDescription: "expected \(T.self), found null"))
        }
        return .typeMismatch(
            T.self, .init(codingPath: codingPath, debugDescription: "expected \(T.self), found \(name)"))
    }

    // MARK: SingleValueDecodingContainer

    func decodeNil() -> Bool { (try? isNull(at: position)) ?? false }
    func decode(_ type: Bool.Type) throws -> Bool { try unboxScalar(type, at: position, path: codingPath) }
    func decode(_ type: String.Type) throws -> String { try unboxScalar(type, at: position, path: codingPath) }
    func decode(_ type: Double.Type) throws -> Double { try unboxScalar(type, at: position, path: codingPath) }
    func decode(_ type: Float.Type) throws -> Float { try unboxScalar(type, at: position, path: codingPath) }
    func decode(_ type: Int.Type) throws -> Int { try unboxScalar(type, at: position, path: codingPath) }
    func decode(_ type: Int8.Type) throws -> Int8 { try unboxScalar(type, at: position, path: codingPath) }
    func decode(_ type: Int16.Type) throws -> Int16 { try unboxScalar(type, at: position, path: codingPath) }
    func decode(_ type: Int32.Type) throws -> Int32 { try unboxScalar(type, at: position, path: codingPath) }
    func decode(_ type: Int64.Type) throws -> Int64 { try unboxScalar(type, at: position, path: codingPath) }
    func decode(_ type: UInt.Type) throws -> UInt { try unboxScalar(type, at: position, path: codingPath) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try unboxScalar(type, at: position, path: codingPath) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try unboxScalar(type, at: position, path: codingPath) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try unboxScalar(type, at: position, path: codingPath) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try unboxScalar(type, at: position, path: codingPath) }
    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        // The value itself, not one inside it: the same level.
        if let special = try specialDecoding(of: T.self, at: position, path: codingPath) {
            return try unboxSpecial(type, special, at: position, path: codingPath)
        }
        return try T(from: SourceDecoder(source: source, position: position, codingPath: codingPath, level: level))
    }
}

/// A coding key for an array index, as in error paths `attachments[2]`.
struct IndexCodingKey: CodingKey {
    let index: Int
    var stringValue: String { "Index \(index)" }
    var intValue: Int? { index }
    init(_ index: Int) { self.index = index }
    init?(stringValue: String) { nil }
    init?(intValue: Int) { index = intValue }
}

/// A coding key for `superDecoder()`.
struct SuperCodingKey: CodingKey {
    var stringValue: String { "super" }
    var intValue: Int? { nil }
    init() {}
    init?(stringValue: String) { nil }
    init?(intValue: Int) { nil }
}

struct SourceKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    /// The decoder whose ``SourceDecoder/object`` this container reads: never `nil` once
    /// ``SourceDecoder/container(keyedBy:)`` has handed the container out.
    let decoder: SourceDecoder

    var codingPath: [any CodingKey] { decoder.codingPath }

    var allKeys: [Key] {
        guard let object = decoder.object else { return [] }
        let names = (try? decoder.source.names(in: object)) ?? []
        return names.compactMap { Key(stringValue: $0) }
    }

    // The members below are generic over `Key`, which the module never sees, so they stay thin:
    // the work happens in `SourceDecoder`'s methods, which are not generic over `Key`.

    @inline(__always)
    private func find(_ key: Key) -> DecodingPosition? {
        decoder.find(key.stringValue)
    }

    private func require(_ key: Key) throws -> DecodingPosition {
        guard let position = find(key) else { throw decoder.keyNotFound(key) }
        return position
    }

    func contains(_ key: Key) -> Bool { find(key) != nil }

    func decodeNil(forKey key: Key) throws -> Bool {
        try decoder.isNull(at: try require(key))
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try decoder.field(type, key.stringValue) { key } }
    func decode(_ type: String.Type, forKey key: Key) throws -> String {
        try decoder.field(type, key.stringValue) { key }
    }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double {
        try decoder.field(type, key.stringValue) { key }
    }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float {
        try decoder.field(type, key.stringValue) { key }
    }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try decoder.field(type, key.stringValue) { key } }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try decoder.field(type, key.stringValue) { key } }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 {
        try decoder.field(type, key.stringValue) { key }
    }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 {
        try decoder.field(type, key.stringValue) { key }
    }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 {
        try decoder.field(type, key.stringValue) { key }
    }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try decoder.field(type, key.stringValue) { key } }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 {
        try decoder.field(type, key.stringValue) { key }
    }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 {
        try decoder.field(type, key.stringValue) { key }
    }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 {
        try decoder.field(type, key.stringValue) { key }
    }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 {
        try decoder.field(type, key.stringValue) { key }
    }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try decoder.unbox(type, at: try require(key), path: codingPath + [key])
    }

    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? {
        try decoder.fieldIfPresent(type, key.stringValue) { key }
    }
    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? {
        try decoder.fieldIfPresent(type, key.stringValue) { key }
    }
    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? {
        try decoder.fieldIfPresent(type, key.stringValue) { key }
    }
    func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? {
        try decoder.fieldIfPresent(type, key.stringValue) { key }
    }
    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? {
        try decoder.fieldIfPresent(type, key.stringValue) { key }
    }
    func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? {
        try decoder.fieldIfPresent(type, key.stringValue) { key }
    }
    func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? {
        try decoder.fieldIfPresent(type, key.stringValue) { key }
    }
    func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? {
        try decoder.fieldIfPresent(type, key.stringValue) { key }
    }
    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? {
        try decoder.fieldIfPresent(type, key.stringValue) { key }
    }
    func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? {
        try decoder.fieldIfPresent(type, key.stringValue) { key }
    }
    func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? {
        try decoder.fieldIfPresent(type, key.stringValue) { key }
    }
    func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? {
        try decoder.fieldIfPresent(type, key.stringValue) { key }
    }
    func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? {
        try decoder.fieldIfPresent(type, key.stringValue) { key }
    }
    func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? {
        try decoder.fieldIfPresent(type, key.stringValue) { key }
    }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        guard let position = find(key), !(try decoder.isNull(at: position)) else { return nil }
        return try decoder.unbox(type, at: position, path: codingPath + [key])
    }

    private func child(_ key: Key) throws -> SourceDecoder {
        try decoder.child(at: try require(key), codingPath: codingPath + [key])
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        try child(key).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try child(key).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder {
        guard let key = Key(stringValue: "super") else {
            throw DecodingError.keyNotFound(
                SuperCodingKey(), .init(codingPath: codingPath, debugDescription: "no field 'super'"))
        }
        return try child(key)
    }

    func superDecoder(forKey key: Key) throws -> any Decoder { try child(key) }
}

struct SourceUnkeyedContainer: UnkeyedDecodingContainer {
    let decoder: SourceDecoder
    let elements: [DecodingPosition]
    var currentIndex = 0

    init(decoder: SourceDecoder, elements: [DecodingPosition]) {
        self.decoder = decoder
        self.elements = elements
    }

    var codingPath: [any CodingKey] { decoder.codingPath }
    var count: Int? { elements.count }
    var isAtEnd: Bool { currentIndex >= elements.count }

    private var currentPath: [any CodingKey] { codingPath + [IndexCodingKey(currentIndex)] }

    private mutating func next<T>(_ type: T.Type) throws -> DecodingPosition {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(
                T.self,
                .init(codingPath: currentPath, debugDescription: "the array has only \(elements.count) elements"))
        }
        return elements[currentIndex]
    }

    mutating func decodeNil() throws -> Bool {
        let position = try next(Never.self)
        guard try decoder.isNull(at: position) else { return false }
        currentIndex += 1
        return true
    }

    private mutating func scalar<T: DecodableScalar>(_ type: T.Type) throws -> T {
        let value = try decoder.unboxScalar(type, at: try next(type), path: currentPath)
        currentIndex += 1
        return value
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool { try scalar(type) }
    mutating func decode(_ type: String.Type) throws -> String { try scalar(type) }
    mutating func decode(_ type: Double.Type) throws -> Double { try scalar(type) }
    mutating func decode(_ type: Float.Type) throws -> Float { try scalar(type) }
    mutating func decode(_ type: Int.Type) throws -> Int { try scalar(type) }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try scalar(type) }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try scalar(type) }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try scalar(type) }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try scalar(type) }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try scalar(type) }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try scalar(type) }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try scalar(type) }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try scalar(type) }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try scalar(type) }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let value = try decoder.unbox(type, at: try next(type), path: currentPath)
        currentIndex += 1
        return value
    }

    private mutating func child() throws -> SourceDecoder {
        let position = try next(Any.self)
        let child = try decoder.child(at: position, codingPath: currentPath)
        currentIndex += 1
        return child
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<
        NestedKey
    > {
        try child().container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try child().unkeyedContainer()
    }

    mutating func superDecoder() throws -> any Decoder { try child() }
}
