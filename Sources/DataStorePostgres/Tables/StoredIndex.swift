import DataStoreCore
import DataStoreEngine
import Foundation

/// A secondary index as the PostgreSQL store holds it: its declaration and the number that
/// names its columns (`k<n>`, `u<n>`) or its side table (`<table>_m<n>`).
struct StoredIndex: Sendable, Codable, Hashable, DeclaredIndex {
    /// What the index orders documents by.
    var definition: IndexDefinition
    /// The number in its column names, never given to another index of the database.
    var column: Int
    /// Whether the application's last declaration named it.
    var declared: Bool

    /// The column holding each row's entry key (single-value indexes).
    var keyColumn: String { "k\(column)" }
    /// The column holding each row's unique value (the uncut components), `NULL` when a field is missing.
    var uniqueColumn: String { "u\(column)" }
    /// The budget of each key component, as in LMDB.
    var componentBudget: Int { StorageKeys.componentBudget(fieldCount: definition.fields.count) }
}

extension StoredIndex {
    /// The rows `document` (stored under `idKey` in `collection`) has in this index: each entry
    /// with the uncut encoding of its values (`nil` where a field is missing, which a unique index
    /// does not constrain).
    ///
    /// A multi-value index's side table holds one row per key, so elements whose keys are cut
    /// alike (strings that agree in all but bytes past the key's budget) share one row, as they
    /// share one entry on LMDB. A unique index compares the uncut values, which one row cannot
    /// hold more than one of: such a document is refused.
    /// - Throws: ``/DataStoreCore/DataStoreError`` `.invalidValue` as a write would, or naming the
    ///   index and field whose elements share a cut key under a unique index.
    func rows(for document: Document, idKey: [UInt8], collection: String) throws(DataStoreError) -> [(
        entry: IndexEntry, unique: [UInt8]?
    )] {
        let entries = try definition.entries(for: document, idKey: idKey, collection: collection)
        let rows = zip(entries, definition.uniqueValues(for: document)).map { entry, unique in
            (entry: entry, unique: entry.hasMissingField ? nil : unique)
        }
        guard definition.multiValue, rows.count > 1 else { return rows }
        var seen = Set<[UInt8]>()
        var kept: [(entry: IndexEntry, unique: [UInt8]?)] = []
        for row in rows {
            if seen.insert(row.entry.key).inserted {
                kept.append(row)
            } else if definition.unique {
                throw DataStoreError(
                    .invalidValue,
                    "field \(definition.fields[0].name) of a document in \(collection) holds elements that agree in "
                        + "their first \(componentBudget) bytes, which unique index \(definition.name) cannot tell "
                        + "apart on PostgreSQL")
            }
        }
        return kept
    }
}
