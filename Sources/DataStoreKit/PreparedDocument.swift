import DataStoreCore
import LMDB

/// A document made ready to write before it reaches the writer: its id set, validated, encoded
/// into record bytes, and its index entries computed.
///
/// All of that is pure work on the document alone, so the caller's task does it and the writer
/// thread — which every write in the process passes through, one at a time — only looks up the
/// old record (not for an insert) and puts bytes. A document that cannot be stored fails here, before it is queued.
struct PreparedDocument: Sendable {
    let id: Value
    /// The record key (``StorageKeys/idKey(_:collection:)``).
    let key: [UInt8]
    /// The document with its id field set.
    let document: Document
    /// The encoded document (``RecordCodec``), without the version prefix.
    let body: [UInt8]
    /// The entries of each index the collection had when this was prepared.
    let entries: [(definition: IndexDefinition, entries: [IndexStorage.Entry])]

    /// The entries of `index`: those computed in advance, or — when the collection's indexes
    /// changed since (an index declared meanwhile) — computed now.
    func entries(of index: IndexStorage, collection: String) throws(DataStoreError) -> [IndexStorage.Entry] {
        for prepared in entries where prepared.definition == index.definition { return prepared.entries }
        return try index.entries(for: document, idKey: key, collection: collection)
    }
}

extension CollectionStorage {
    /// Prepares `document` to be written under `id`.
    /// - Throws: ``DataStoreError`` `.invalidID` for an id that cannot be a key, `.invalidValue`
    ///   for a value the record format cannot hold or an array in a single-value index.
    func prepare(_ document: Document, id: Value) throws(DataStoreError) -> PreparedDocument {
        let key = try idKey(id)
        var document = document
        document[idField] = id
        let body: [UInt8]
        do {
            try RecordCodec.validate(document)
            body = RecordCodec.encode(document)
        } catch {
            throw DataStoreError(.invalidValue, "the object \(id) cannot be stored in \(name): \(error)", underlying: error)
        }
        var entries: [(definition: IndexDefinition, entries: [IndexStorage.Entry])] = []
        for index in indexes {
            entries.append((index.definition, try index.entries(for: document, idKey: key, collection: name)))
        }
        return PreparedDocument(id: id, key: key, document: document, body: body, entries: entries)
    }
}
