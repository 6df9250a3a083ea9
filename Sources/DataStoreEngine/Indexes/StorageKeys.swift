package import DataStoreCore

/// The byte layout of record keys and index keys (docs/encoding.md, "Store layout").
///
/// - A record key is the ordered-key encoding of the id (a string or an integer), at most
///   ``maxIDKeyBytes`` bytes.
/// - An index key is `component₁ … componentₙ ‖ idKey ‖ len(idKey)`: the field values in
///   ordered-key encoding (each cut to a fixed budget so the key fits LMDB's 511 bytes), then
///   the record key, then its length in one byte, so the id is found from the end of the key
///   without parsing the components.
package enum StorageKeys {
    /// The longest encoded id. Fixed, so every index component has a budget independent of the id.
    package static let maxIDKeyBytes = 128
    /// The component that stands for a field the document does not have: below every value
    /// (`null` is 0x10), so *missing* sorts first ascending and last descending.
    static let missingTag: UInt8 = 0x05

    /// The record key of `id`.
    /// - Throws: ``/DataStoreCore/DataStoreError/Code/invalidID`` naming the collection and the id when the id is
    ///   not a non-empty string or an integer, or encodes to more than ``maxIDKeyBytes``.
    package static func idKey(_ id: Value, collection: String) throws(DataStoreError) -> [UInt8] {
        switch id {
        case .string(let text) where text.isEmpty:
            throw DataStoreError(.invalidID, "an empty string is not an id (collection \(collection))")
        case .string, .int:
            break
        case .double(let number) where Int64(exactly: number) != nil:
            return try idKey(.int(Int64(exactly: number)!), collection: collection)
        default:
            throw DataStoreError(
                .invalidID,
                "id \(id) of type \(id.typeName) in collection \(collection): "
                    + "ids are non-empty strings or integers")
        }
        var key: [UInt8] = []
        KeyCodec.append(id, to: &key)
        guard key.count <= maxIDKeyBytes else {
            throw DataStoreError(
                .invalidID,
                "id of \(key.count) encoded bytes in collection \(collection) "
                    + "is longer than the \(maxIDKeyBytes) allowed")
        }
        return key
    }

    /// The budget of each component of an index with `fieldCount` fields.
    package static func componentBudget(fieldCount: Int) -> Int {
        (KeyCodec.maxKeyBytes - maxIDKeyBytes - 1) / max(fieldCount, 1)
    }

    /// Appends one index component for `value` (or *missing* for `nil`); returns whether it was cut.
    @discardableResult
    package static func appendComponent(_ value: Value?, descending: Bool, budget: Int, to key: inout [UInt8]) -> Bool {
        guard let value else {
            key.append(descending ? ~missingTag : missingTag)
            return false
        }
        return KeyCodec.appendTruncating(value, to: &key, descending: descending, maxBytes: budget)
    }

    /// Appends the id suffix to an index key.
    package static func appendIDSuffix(_ idKey: [UInt8], to key: inout [UInt8]) {
        key.append(contentsOf: idKey)
        key.append(UInt8(idKey.count))
    }

    /// The record key at the end of an index key.
    @inlinable
    package static func idKey(inIndexKey key: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer? {
        guard let length = key.last.map(Int.init), length > 0, key.count > length else { return nil }
        return UnsafeRawBufferPointer(rebasing: key[(key.count - 1 - length)..<(key.count - 1)])
    }
}
