/// A type that reads itself straight from a stored record, field by field — the fastest way to
/// turn records into objects (as GRDB's `init(row:)`): no `Decoder`, no ``Document`` in between.
///
/// A struct of the application's own module can build the value in one call of its memberwise
/// initializer, as below: a throwing initializer that assigns the properties one by one has the
/// optimiser copy the finished value once more (a retain and a release for each of its strings).
///
/// ```swift
/// extension Message: RecordDecodable {
///     init(record: borrowing RecordFields) throws {
///         self.init(id: try record.string("id") ?? "", createdTS: try record.double("created_ts") ?? 0)
///     }
/// }
/// let messages = try await store.collection("Message", mapping: .codable(idField: "id"), …)   // or
/// let fast = try await store.collection("Message", mapping: .recordDecodable(idField: "id"), …)
/// ```
public protocol RecordDecodable {
    /// Reads the object from `record`.
    /// - Throws: ``CodecError`` for damaged bytes or a field of the wrong type, or any error of
    ///   the type's own.
    init(record: borrowing RecordFields) throws
}

/// The fields of one stored record, read by name from its bytes (`RecordCodec` format).
///
/// Valid only during ``RecordDecodable/init(record:)``: it points into storage that is lent for
/// that call. Each accessor returns `nil` when the field is absent or `null`, and throws
/// ``CodecError`` `.unsupportedType` naming the field when it holds another type.
public struct RecordFields: ~Copyable {
    let bytes: UnsafeRawBufferPointer
    /// Where the fields are, found once here rather than by every accessor.
    let index: RecordFieldIndex

    @usableFromInline
    init(_ bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
        index = RecordFieldIndex(record: bytes)
    }

    /// The fields of the record in `bytes`, which must stay valid while this is used.
    package init(unsafeBytes bytes: UnsafeRawBufferPointer) { self.init(bytes) }

    /// The field's value, or `nil` when absent.
    /// - Complexity: O(fields before it): names are read and values skipped, not decoded.
    public func value(_ name: String) throws(CodecError) -> Value? {
        try RecordCodec.field(name, in: bytes)
    }

    /// The string in field `name`.
    public func string(_ name: String) throws(CodecError) -> String? {
        try read(name, "string", fast: { RecordScan.string(bytes, at: $0) }, general: { $0.stringValue })
    }

    /// The number in field `name` as a `Double` (an integer converts).
    public func double(_ name: String) throws(CodecError) -> Double? {
        try read(
            name, "number",
            fast: { RecordScan.double(bytes, at: $0) ?? RecordScan.int(bytes, at: $0).map(Double.init) },
            general: { $0.isNumber ? $0.doubleValue : nil })
    }

    /// The integer in field `name` (a double with an exact integral value converts).
    public func int(_ name: String) throws(CodecError) -> Int64? {
        try read(name, "integer", fast: { RecordScan.int(bytes, at: $0) }, general: { $0.intValue })
    }

    /// The Boolean in field `name`.
    public func bool(_ name: String) throws(CodecError) -> Bool? {
        try read(name, "bool", fast: { RecordScan.bool(bytes, at: $0) }, general: { $0.boolValue })
    }

    /// The bytes in field `name`.
    public func bytes(_ name: String) throws(CodecError) -> [UInt8]? {
        try read(
            name, "bytes", fast: { RecordScan.payload(bytes, at: $0, tag: RecordCodec.Tag.bytes).map(Array.init) },
            general: { $0.bytesValue })
    }

    /// Every typed accessor: first ``RecordScan``, which reads a well-formed value of the asked-for
    /// type straight from the bytes at the field (`fast`; no `Value`, no thrown error); everything
    /// else — null, another type, damaged bytes — goes through ``value(_:)``, which decides and
    /// reports (`general` converts the value, or is `nil` for another type).
    @inline(__always)
    private func read<T>(
        _ name: String, _ wanted: String, fast: (Int) -> T?, general: (Value) -> T?
    ) throws(CodecError) -> T? {
        switch scan(name) {
        case .found(let offset):
            if let value = fast(offset) { return value }
        case .absent:
            return nil
        case .general:
            break
        }
        return try readGeneral(name, wanted, general)
    }

    /// The general half of ``read(_:_:fast:general:)``, out of line so that the fast half stays
    /// small where it is inlined.
    @inline(never)
    private func readGeneral<T>(_ name: String, _ wanted: String, _ general: (Value) -> T?) throws(CodecError) -> T? {
        switch try value(name) {
        case nil, .null?: return nil
        case let found?:
            guard let value = general(found) else { throw Self.mismatch(name, wanted, found) }
            return value
        }
    }

    /// Where field `name` is, by the fast scan.
    @inline(__always)
    private func scan(_ name: String) -> RecordScan.Lookup {
        index.field(name, in: bytes)
    }

    private static func mismatch(_ name: String, _ wanted: String, _ found: Value) -> CodecError {
        CodecError(.unsupportedType, "field \(name) holds a \(found.typeName), not a \(wanted)", fieldPath: name)
    }
}

extension ObjectMapping where Object: Codable & RecordDecodable & SendableMetatype {
    /// A `Codable` mapping that reads records through the type's ``RecordDecodable`` initialiser.
    @inlinable
    public static func recordDecodable(idField: String) -> ObjectMapping<Object> {
        ObjectMapping(
            idField: idField,
            encode: { object in try DocumentEncoder().encode(object) },
            decode: { document in try DocumentDecoder().decode(Object.self, from: document) },
            decodeRecord: { bytes in try Object(record: RecordFields(bytes)) }
        )
    }
}
