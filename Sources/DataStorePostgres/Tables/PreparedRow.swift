import DataStoreCore
import DataStoreEngine

/// A document made ready to write: its id, record bytes, JSON rendering and index entries.
package struct PreparedRow: Sendable {
    /// The id.
    let id: Value
    /// The record key of the id (the `id` column).
    let idKey: [UInt8]
    /// The record in this store's codec (the `record` column).
    let body: [UInt8]
    /// The document as JSON text (the `doc` column), `nil` when JSON cannot carry it
    /// (NaN, infinities, or a NUL character, which `jsonb` refuses).
    let json: String?
    /// The document.
    let document: Document
    /// The entries of each index by column number, with each entry's unique value (`nil` where a field is missing).
    let entries: [Int: [(entry: IndexEntry, unique: [UInt8]?)]]

    /// Prepares `document` under `id` for every index of `layout`, refusing a record over
    /// `maxBytes` (``PostgresStore/Options/maxDocumentBytes``).
    /// - Throws: ``/DataStoreCore/DataStoreError`` `.invalidID`, `.invalidValue`, `.tooLarge` (as the LMDB store).
    init(_ document: Document, id: Value, layout: TableLayout, maxBytes: Int = .max) throws(DataStoreError) {
        let key = try layout.idKey(id)
        var document = document
        document[layout.idField] = id
        do {
            body = try RecordCodec.encode(document)
        } catch {
            throw DataStoreError(
                .invalidValue, "the object \(id) cannot be stored in \(layout.name): \(error)", underlying: error)
        }
        try DocumentSize.check(
            body.count, limit: maxBytes, id: id, collection: layout.name,
            option: "PostgresStore.Options.maxDocumentBytes")
        var entries: [Int: [(entry: IndexEntry, unique: [UInt8]?)]] = [:]
        for index in layout.indexes {
            entries[index.column] = try index.rows(for: document, idKey: key, collection: layout.name)
        }
        let text = try? JSONForm.text(document)
        self.id = id
        self.idKey = key
        self.document = document
        self.json = text.flatMap { $0.contains("\\u0000") ? nil : $0 }
        self.entries = entries
    }

    /// The values `index` holds for this document, as the LMDB store names them in a unique violation.
    func shownValues(_ index: StoredIndex) -> String {
        index.definition.fields.map { document.value(atPath: $0.name).map(String.init(describing:)) ?? "missing" }
            .joined(separator: ", ")
    }
}
