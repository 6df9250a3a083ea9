import DataStoreCore
import LMDB
import DataStoreEngine

/// A document made ready to write before it reaches the writer: its id set, validated, encoded
/// into record bytes, and its index entries computed.
///
/// All of that is pure work on the document alone, so the caller's task does it and the writer
/// thread — which every write in the process passes through, one at a time — only looks up the
/// old record (not for an insert) and puts bytes. A document that cannot be stored fails here, before it is queued.
package struct PreparedDocument: Sendable {
    let id: Value
    /// The record key (``StorageKeys/idKey(_:collection:)``).
    let key: [UInt8]
    /// The encoded document (``RecordCodec``), its id field set, without the version prefix.
    let body: [UInt8]
    /// The document, when it was prepared from one; otherwise it is decoded from `body` on demand.
    let given: Document?
    /// The entries of each index the collection had when this was prepared.
    let entries: [(definition: IndexDefinition, entries: [IndexTable.Entry])]
    /// Whether the id came with the object (rather than being generated or given apart), so the
    /// stored object is the one the caller has.
    let keptObjectID: Bool

    /// The document as stored.
    func document() throws(DataStoreError) -> Document {
        if let given { return given }
        do { return try RecordCodec.decode(body) } catch {
            throw DataStoreError(.codec, "the prepared record \(id) cannot be decoded", underlying: error)
        }
    }

    /// The entries of `index`: those computed in advance, or — when the collection's indexes
    /// changed since (an index declared meanwhile) — computed now.
    func entries(of index: IndexTable, collection: String) throws(DataStoreError) -> [IndexTable.Entry] {
        for prepared in entries where prepared.definition == index.definition { return prepared.entries }
        return try index.entries(for: document(), idKey: key, collection: collection)
    }
}

extension CollectionTable {
    /// Prepares `document` to be written under `id`.
    /// - Parameter keptObjectID: Whether `id` is the one the document already held.
    /// - Throws: ``/DataStoreCore/DataStoreError`` `.invalidID` for an id that cannot be a key, `.invalidValue`
    ///   for a value the record format cannot hold or an array in a single-value index.
    func prepare(_ document: Document, id: Value, keptObjectID: Bool = false) throws(DataStoreError) -> PreparedDocument
    {
        let key = try idKey(id)
        var document = document
        document[idField] = id
        let body: [UInt8]
        do {
            body = try RecordCodec.encode(document)
        } catch {
            throw DataStoreError(
                .invalidValue, "the object \(id) cannot be stored in \(name): \(error)", underlying: error)
        }
        try checkSize(body, id: id)
        var entries: [(definition: IndexDefinition, entries: [IndexTable.Entry])] = []
        for index in indexes {
            entries.append((index.definition, try index.entries(for: document, idKey: key, collection: name)))
        }
        return PreparedDocument(
            id: id, key: key, body: body, given: document, entries: entries, keptObjectID: keptObjectID)
    }

    /// Prepares the record an object wrote itself (``/DataStoreCore/RecordEncodable``), under `id` when given,
    /// else under the id it holds, else — with `generatingMissingID` — a new one.
    ///
    /// When the record already holds the id and every name involved is ASCII, nothing is
    /// decoded: the index entries are read from the bytes. Otherwise it goes through a document,
    /// which finds fields by canonical equivalence (as the store's check does) where bytes would not.
    /// - Throws: as ``prepare(_:id:keptObjectID:)``, and `.invalidID` for a missing id when not
    ///   generating one.
    func prepare(record written: WrittenRecord, id requested: Value?, generatingMissingID: Bool) throws(DataStoreError)
        -> PreparedDocument
    {
        let body = written.bytes
        let held: Value?
        do { held = try RecordCodec.field(idField, in: body) } catch {
            throw DataStoreError(
                .invalidValue, "an object written for \(name) is not a valid record: \(error)", underlying: error)
        }
        let own = DataStore.identity(of: held)
        let id = try chooseID(requested ?? own, generatingMissingID: generatingMissingID)
        try checkSize(body, id: id)
        // The index list and what its names are, read together (an index may be declared meanwhile).
        let (indexes, keyNamesAreASCII) = indexesAndNames
        guard written.namesAreASCII, keyNamesAreASCII, let held, Self.sameID(held, id) else {
            let document: Document
            do { document = try RecordCodec.decode(body) } catch {
                throw DataStoreError(
                    .invalidValue, "an object written for \(name) is not a valid record: \(error)", underlying: error)
            }
            return try prepare(document, id: id, keptObjectID: own.map { Self.sameID($0, id) } ?? false)
        }
        let key = try idKey(id)
        let computed = body.withUnsafeBytes {
            bytes -> Result<[(definition: IndexDefinition, entries: [IndexTable.Entry])], DataStoreError> in
            do throws(DataStoreError) {
                return .success(
                    try indexes.map { index throws(DataStoreError) in
                        (index.definition, try index.entries(forRecord: bytes, idKey: key, collection: name))
                    })
            } catch {
                return .failure(error)
            }
        }
        let entries = try computed.get()
        return PreparedDocument(id: id, key: key, body: body, given: nil, entries: entries, keptObjectID: true)
    }

    /// Throws `.tooLarge` when `body` is over ``maxDocumentBytes``.
    private func checkSize(_ body: [UInt8], id: Value) throws(DataStoreError) {
        try DocumentSize.check(
            body.count, limit: maxDocumentBytes, id: id, collection: name, option: "DataStore.Options.maxDocumentBytes")
    }

    /// `id`, or a new one with `generatingMissingID`.
    /// - Throws: ``/DataStoreCore/DataStoreError/Code/invalidID`` for a missing id when not generating one.
    func chooseID(_ id: Value?, generatingMissingID: Bool) throws(DataStoreError) -> Value {
        if let id { return id }
        guard generatingMissingID else {
            throw DataStoreError(.invalidID, "an object without an id in field \(idField) cannot be put into \(name)")
        }
        return .string(IDGenerator.next())
    }

    /// Whether two ids are the same value of the same kind (a record holding `.double(1)` is not
    /// keyed as `.int(1)`: its bytes would not say what its key says).
    private static func sameID(_ a: Value, _ b: Value) -> Bool {
        switch (a, b) {
        case (.string(var x), .string(var y)): x.withUTF8 { x in y.withUTF8 { x.elementsEqual($0) } }
        case (.int(let x), .int(let y)): x == y
        default: false
        }
    }
}
