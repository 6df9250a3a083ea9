import DataStoreCore
import LMDB

/// A secondary index as stored: its declaration, its LMDB database, and whether it is complete.
struct IndexTable: Sendable {
    enum State: String, Sendable, Codable {
        /// Being built from existing records; maintained by writes, not yet used by queries.
        case building
        /// Complete: queries may use it.
        case ready
    }

    let definition: IndexDefinition
    let database: Database
    var state: State
    /// Whether the application's last declaration of the collection named this index; one it
    /// left out is kept and maintained until dropped on purpose (see ``UndeclaredIndexes``).
    var declared = true

    var name: String { definition.name }
    var componentBudget: Int { StorageKeys.componentBudget(fieldCount: definition.fields.count) }

    /// One index entry of a document.
    struct Entry: Hashable {
        var key: [UInt8]
        /// The length of the components part (the key without the id suffix).
        var componentsCount: Int
        /// Whether some component was cut to fit the key limit (the real value must be re-checked).
        var isTruncated: Bool
        /// Whether some field was missing (unique indexes do not constrain such entries).
        var hasMissingField: Bool
    }

    /// The entries `document` has in this index.
    ///
    /// - Throws: ``/DataStoreCore/DataStoreError/Code/invalidValue`` naming the collection, index, field and
    ///   value when a field of a single-value index holds an array (declare the index
    ///   `multiValue` to index elements).
    func entries(for document: Document, idKey: [UInt8], collection: String) throws(DataStoreError) -> [Entry] {
        try entries(idKey: idKey, collection: collection) { name throws(DataStoreError) in document.value(atPath: name)
        }
    }

    /// The entries of the record `body` (``RecordCodec`` format, without a version) in this index,
    /// read field by field from the bytes.
    ///
    /// - Throws: as ``entries(for:idKey:collection:)``, and ``/DataStoreCore/DataStoreError/Code/codec`` for
    ///   damaged bytes.
    func entries(forRecord body: UnsafeRawBufferPointer, idKey: [UInt8], collection: String) throws(DataStoreError)
        -> [Entry]
    {
        try entries(idKey: idKey, collection: collection) { name throws(DataStoreError) in
            do { return try RecordCodec.value(atPath: name, in: body) } catch {
                throw DataStoreError(
                    .codec, "field \(name) of a record in \(collection) cannot be read", underlying: error)
            }
        }
    }

    /// The entries of the document whose top-level fields `field` looks up.
    private func entries(
        idKey: [UInt8], collection: String, field lookup: (String) throws(DataStoreError) -> Value?
    ) throws(DataStoreError) -> [Entry] {
        let fields = definition.fields
        if definition.multiValue {
            let field = fields[0]
            let values: [Value?]
            switch try lookup(field.name) {
            case .array(let elements) where !elements.isEmpty:
                var seen = Set<Value>()
                values = elements.filter { seen.insert($0).inserted }
            case .array, nil:
                values = [nil]
            case let value?:
                values = [value]
            }
            return values.map { value in
                var key: [UInt8] = []
                let cut = StorageKeys.appendComponent(
                    value, descending: field.descending, budget: componentBudget, to: &key)
                let count = key.count
                StorageKeys.appendIDSuffix(idKey, to: &key)
                return Entry(key: key, componentsCount: count, isTruncated: cut, hasMissingField: value == nil)
            }
        }
        var key: [UInt8] = []
        key.reserveCapacity(64)
        var cut = false
        var missing = false
        for field in fields {
            let value = try lookup(field.name)
            if case .array? = value {
                throw DataStoreError(
                    .invalidValue,
                    "field \(field.name) of a document in \(collection) holds an array, "
                        + "but index \(name) is not multi-value (declare it with multiValue: true to index elements)")
            }
            missing = missing || value == nil
            cut =
                StorageKeys.appendComponent(value, descending: field.descending, budget: componentBudget, to: &key)
                || cut
        }
        let count = key.count
        StorageKeys.appendIDSuffix(idKey, to: &key)
        return [Entry(key: key, componentsCount: count, isTruncated: cut, hasMissingField: missing)]
    }

    /// The values of this index's fields in `document`, for comparing against a unique
    /// candidate whose key was cut.
    func values(in document: Document) -> [Value?] {
        definition.fields.map { document.value(atPath: $0.name) }
    }
}
