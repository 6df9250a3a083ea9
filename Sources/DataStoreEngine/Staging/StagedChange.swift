package import DataStoreCore

/// A change a unit of work (an LMDB `Context`, a PostgreSQL context) has staged for one record,
/// encoded when it was staged, as `Row` (the backend's prepared record).
package enum StagedChange<Row: Sendable>: Sendable {
    /// Insert: the record was absent in the context's view.
    case insert(Row)
    /// Replace or insert.
    case upsert(Row)
    /// Remove: the record was present in the context's view.
    case remove

    /// Folds a later change to `key` into `changes` (and `order`, the staging order): only the
    /// net effect is kept, so an insert then a remove stages nothing, and a remove then an add
    /// replaces.
    package static func fold(
        _ change: StagedChange, into changes: inout [StagedKey: StagedChange], order: inout [StagedKey],
        at key: StagedKey
    ) {
        let staged = changes[key]
        let combined: StagedChange?
        switch (staged, change) {
        case (nil, _): combined = change
        case (.insert?, .insert(let row)), (.insert?, .upsert(let row)): combined = .insert(row)
        case (.insert?, .remove): combined = nil
        case (.upsert?, .remove), (.remove?, .remove): combined = .remove
        case (.upsert?, .insert(let row)), (.upsert?, .upsert(let row)), (.remove?, .insert(let row)),
            (.remove?, .upsert(let row)):
            combined = .upsert(row)
        }
        if staged == nil { order.append(key) }
        changes[key] = combined
        if combined == nil { order.removeAll { $0 == key } }
    }
}

/// The record a staged change is for.
package struct StagedKey: Hashable, Sendable {
    package let collection: String
    package let id: Value
    /// The hash of both, computed once: a save looks its key up in several tables, and hashing
    /// the strings again each time cost more than the lookups.
    private let hash: Int

    package init(collection: String, id: Value) {
        self.collection = collection
        self.id = id
        var hasher = Hasher()
        hasher.combine(collection)
        hasher.combine(id)
        hash = hasher.finalize()
    }

    package static func == (lhs: StagedKey, rhs: StagedKey) -> Bool {
        lhs.hash == rhs.hash && lhs.collection == rhs.collection && lhs.id == rhs.id
    }

    package func hash(into hasher: inout Hasher) { hasher.combine(hash) }
}
