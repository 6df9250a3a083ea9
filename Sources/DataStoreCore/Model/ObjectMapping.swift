/// How a model turns its objects into documents and back: the one place an `ObjectCoder`'s
/// `[String: Any]` or a `Codable` type meets ``Document``.
///
/// ```swift
/// let messages: ObjectMapping<Message> = .objectCoder          // Message: ObjectCoder
/// let notes: ObjectMapping<Note> = .codable(idField: "id")     // Note: Codable
/// ```
public struct ObjectMapping<Object>: Sendable {
    /// The field that holds each object's identifier.
    public let idField: String
    /// Turns an object into the document stored for it.
    public let encode: @Sendable (Object) throws -> Document
    /// Builds an object from a stored document.
    public let decode: @Sendable (Document) throws -> Object
    /// Builds an object straight from record bytes (`RecordCodec`), skipping the document.
    public let decodeRecord: @Sendable (UnsafeRawBufferPointer) throws -> Object
    /// Writes an object straight into record bytes, skipping the document, when the mapping can
    /// (``record(idField:)``); otherwise `nil`, and objects are stored through ``encode``.
    ///
    /// Only ``RecordWriter`` fills it, so the store can take its bytes as a well-formed record
    /// without decoding them.
    public let encodeRecord: (@Sendable (Object) throws -> WrittenRecord)?
    /// The top-level fields the object type reads, when the mapping can tell (``codable(idField:)``
    /// probes the type's coding keys); `nil` otherwise. A store refuses an `idField` outside them.
    @usableFromInline
    package let knownFields: @Sendable () -> Set<String>?
    /// Decodes the records `fill` hands to its `add` into an array, in order, making room for
    /// `capacity` at the first (none when nothing is added). Made where the mapping is made (the
    /// factories below are inlinable), so that in the application's module it is compiled for
    /// `Object`: the store's code, generic over `Object` and unspecialized there, would look up
    /// the array's runtime metadata on every query that appends.
    @usableFromInline
    package let collectRecords:
        @Sendable (_ capacity: Int, _ fill: (_ add: (UnsafeRawBufferPointer) throws -> Void) throws -> Void) throws
            -> [Object]

    /// A mapping from its functions. `decodeRecord` defaults to decoding a ``Document`` first;
    /// objects are stored through `encode`.
    @inlinable
    public init(
        idField: String,
        encode: @escaping @Sendable (Object) throws -> Document,
        decode: @escaping @Sendable (Document) throws -> Object,
        decodeRecord: (@Sendable (UnsafeRawBufferPointer) throws -> Object)? = nil
    ) {
        self.init(
            idField: idField, encode: encode, decode: decode, decodeRecord: decodeRecord, recordWriter: nil,
            knownFields: { nil })
    }

    /// A mapping whose `recordWriter` writes records through ``RecordWriter``.
    @inlinable
    init(
        idField: String,
        encode: @escaping @Sendable (Object) throws -> Document,
        decode: @escaping @Sendable (Document) throws -> Object,
        decodeRecord: (@Sendable (UnsafeRawBufferPointer) throws -> Object)?,
        recordWriter: (@Sendable (Object) throws -> WrittenRecord)?,
        knownFields: @escaping @Sendable () -> Set<String>? = { nil }
    ) {
        let decodeRecord = decodeRecord ?? { bytes in try decode(Self.recordDocument(bytes)) }
        self.idField = idField
        self.encode = encode
        self.decode = decode
        self.decodeRecord = decodeRecord
        self.encodeRecord = recordWriter
        self.knownFields = knownFields
        self.collectRecords = { capacity, fill in
            var objects: [Object] = []
            try fill { bytes in
                if objects.isEmpty { objects.reserveCapacity(capacity) }
                objects.append(try decodeRecord(bytes))
            }
            return objects
        }
    }
}

extension ObjectMapping where Object: RecordDecodable & RecordEncodable & SendableMetatype {
    /// The fastest mapping: the type writes and reads its records itself (``RecordEncodable``,
    /// ``RecordDecodable``), with no `Codable` and no ``Document`` on the way to or from disk.
    /// Documents are made only where one is asked for (``encode`` and ``decode``).
    /// - Parameter idField: The field the type writes its identifier in.
    @inlinable
    public static func record(idField: String) -> ObjectMapping<Object> {
        ObjectMapping(
            idField: idField,
            encode: { object in try recordDocument(object.recordBytes()) },
            decode: { document in
                try recordBytes(of: document).withUnsafeBytes { try Object(record: RecordFields($0)) }
            },
            decodeRecord: { bytes in try Object(record: RecordFields(bytes)) },
            recordWriter: { object in try object.writtenRecord() }
        )
    }
}

extension ObjectMapping where Object: ObjectCoder & SendableMetatype {
    /// The seed's mapping: `toDictionary()` and `init(dictionary:)`, identified by
    /// `identifierKey()`. The dictionary is converted to a document once, at this edge.
    @inlinable
    public static var objectCoder: ObjectMapping<Object> {
        ObjectMapping(
            idField: Object.identifierKey(),
            encode: { object in try Document(dictionary: object.toDictionary()) },
            decode: { document in Object(dictionary: document.toDictionary()) }
        )
    }
}

extension ObjectMapping where Object: Codable & SendableMetatype {
    /// A `Codable` mapping that never goes through JSON: ``DocumentEncoder`` to store, and
    /// ``RecordDecoder`` straight from the record bytes to read.
    /// - Parameter idField: The coding key of the identifier property.
    @inlinable
    public static func codable(idField: String) -> ObjectMapping<Object> {
        ObjectMapping(
            idField: idField,
            encode: { object in try DocumentEncoder().encode(object) },
            decode: { document in try DocumentDecoder().decode(Object.self, from: document) },
            decodeRecord: { bytes in try RecordDecoder().decode(Object.self, from: bytes) },
            recordWriter: nil,
            knownFields: { CodingKeyProbe.keys(of: Object.self) }
        )
    }
}

extension ObjectMapping {
    /// The document in record bytes (``RecordCodec``, for the inlinable mappings above).
    @usableFromInline
    static func recordDocument(_ bytes: UnsafeRawBufferPointer) throws -> Document { try RecordCodec.decode(bytes) }

    /// The document in record bytes held in an array.
    @usableFromInline
    static func recordDocument(_ bytes: [UInt8]) throws -> Document { try RecordCodec.decode(bytes) }

    /// The record bytes of `document`.
    @usableFromInline
    static func recordBytes(of document: Document) throws -> [UInt8] { try RecordCodec.encode(document) }
}

extension ObjectMapping where Object == Document {
    /// The identity mapping: objects are the stored documents themselves.
    public static func documents(idField: String) -> ObjectMapping<Document> {
        ObjectMapping(idField: idField, encode: { $0 }, decode: { $0 }, decodeRecord: { try RecordCodec.decode($0) })
    }
}

extension ObjectMapping {
    /// Throws unless objects can hold their id where the mapping says: for a `Codable` mapping,
    /// `idField` must be one of the type's coding keys (any store checks this when a collection is
    /// declared).
    /// - Throws: ``DataStoreError`` `.schemaMismatch` naming the field, the collection and the keys.
    package func checkIDField(collection name: String) throws(DataStoreError) {
        if let fields = knownFields(), !fields.contains(idField) {
            throw DataStoreError(
                .schemaMismatch,
                "the id field \(idField) of collection \(name) is not a coding key of \(Object.self) "
                    + "(its keys: \(fields.sorted().joined(separator: ", ")))")
        }
    }
}
