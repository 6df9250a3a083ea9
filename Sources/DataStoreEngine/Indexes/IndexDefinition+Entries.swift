package import DataStoreCore

extension IndexDefinition {
    /// The entries `document` has in this index.
    ///
    /// - Throws: ``/DataStoreCore/DataStoreError/Code/invalidValue`` naming the collection, index, field and
    ///   value when a field of a single-value index holds an array (declare the index
    ///   `multiValue` to index elements).
    package func entries(for document: Document, idKey: [UInt8], collection: String) throws(DataStoreError)
        -> [IndexEntry]
    {
        try entries(idKey: idKey, collection: collection) { name throws(DataStoreError) in
            document.value(atPath: name)
        }
    }

    /// The entries of the record `body` (``RecordCodec`` format, without a version) in this index,
    /// read field by field from the bytes.
    ///
    /// - Throws: as ``entries(for:idKey:collection:)``, and ``/DataStoreCore/DataStoreError/Code/codec`` for
    ///   damaged bytes.
    package func entries(forRecord body: UnsafeRawBufferPointer, idKey: [UInt8], collection: String)
        throws(DataStoreError)
        -> [IndexEntry]
    {
        try entries(idKey: idKey, collection: collection) { name throws(DataStoreError) in
            do { return try RecordCodec.value(atPath: name, in: body) } catch {
                throw DataStoreError(
                    .codec, "field \(name) of a record in \(collection) cannot be read", underlying: error)
            }
        }
    }

    /// Appends to `key` the one entry key of the record `body` in this single-value index, read
    /// from the bytes, the record key `idKey` last; returns `false` (with `key` part-written)
    /// when a field is not found there, for the caller to look again through the document.
    ///
    /// The same bytes as ``entries(forRecord:idKey:collection:)``, without an array per entry.
    /// - Throws: as ``entries(forRecord:idKey:collection:)``.
    package func appendKey(
        forRecord body: UnsafeRawBufferPointer, idKey: UnsafeRawBufferPointer, collection: String,
        to key: inout [UInt8]
    ) throws(DataStoreError) -> Bool {
        precondition(!multiValue, "a multi-value index has an entry per element")
        let budget = StorageKeys.componentBudget(fieldCount: fields.count)
        for field in fields {
            let value: Value?
            do { value = try RecordCodec.value(atPath: field.name, in: body) } catch {
                throw DataStoreError(
                    .codec, "field \(field.name) of a record in \(collection) cannot be read", underlying: error)
            }
            guard let value else { return false }
            if case .array = value {
                throw DataStoreError(
                    .invalidValue,
                    "field \(field.name) of a document in \(collection) holds an array, "
                        + "but index \(name) is not multi-value (declare it with multiValue: true to index elements)")
            }
            StorageKeys.appendComponent(value, descending: field.descending, budget: budget, to: &key)
        }
        key.append(contentsOf: idKey)
        key.append(UInt8(idKey.count))
        return true
    }

    /// The uncut encoding of the values of each of `document`'s entries, in the order of
    /// ``entries(for:idKey:collection:)``: what a unique index compares, so that values cut alike
    /// in their keys still differ. An entry with a missing field has an empty encoding (a unique
    /// index does not constrain it).
    package func uniqueValues(for document: Document) -> [[UInt8]] {
        if multiValue {
            return Self.entryValues(ofMultiValue: document.value(atPath: fields[0].name)).map { value in
                value.map { KeyCodec.encode([$0]) } ?? []
            }
        }
        return [KeyCodec.encode(fields.compactMap { document.value(atPath: $0.name) })]
    }

    /// The values a multi-value index makes entries of for a field holding `value`: each distinct
    /// element of an array, the value itself when it is not one, and one missing value (`nil`) for
    /// an empty array or a missing field.
    private static func entryValues(ofMultiValue value: Value?) -> [Value?] {
        switch value {
        case .array(let elements) where !elements.isEmpty:
            var seen = Set<Value>()
            return elements.filter { seen.insert($0).inserted }
        case .array, nil:
            return [nil]
        case let value?:
            return [value]
        }
    }

    /// The entries of the document whose fields (paths) `lookup` finds.
    private func entries(
        idKey: [UInt8], collection: String, field lookup: (String) throws(DataStoreError) -> Value?
    ) throws(DataStoreError) -> [IndexEntry] {
        let budget = StorageKeys.componentBudget(fieldCount: fields.count)
        if multiValue {
            let field = fields[0]
            return Self.entryValues(ofMultiValue: try lookup(field.name)).map { value in
                var key: [UInt8] = []
                let cut = StorageKeys.appendComponent(
                    value, descending: field.descending, budget: budget, to: &key)
                let count = key.count
                StorageKeys.appendIDSuffix(idKey, to: &key)
                return IndexEntry(key: key, componentsCount: count, isTruncated: cut, hasMissingField: value == nil)
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
                StorageKeys.appendComponent(value, descending: field.descending, budget: budget, to: &key)
                || cut
        }
        let count = key.count
        StorageKeys.appendIDSuffix(idKey, to: &key)
        return [IndexEntry(key: key, componentsCount: count, isTruncated: cut, hasMissingField: missing)]
    }
}
