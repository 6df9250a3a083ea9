import DataStoreCore
import DataStoreKit
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
