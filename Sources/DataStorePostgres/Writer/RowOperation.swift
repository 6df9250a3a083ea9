import DataStoreCore

/// One write of a change set.
enum RowOperation: Sendable {
    /// Insert; the id must be free (``/DataStoreCore/DataStoreError/Code/duplicateID``), or with an expected
    /// version of `.absent`, a stored id is a conflict.
    case insert(PreparedRow, TableLayout, expectingAbsent: Bool)
    /// Replace or insert (the seed's `put`), or with `version`, replace only that version.
    case upsert(PreparedRow, TableLayout, version: Int?)
    /// Delete the row under `id`, or with `version`, only that version.
    case remove(id: Value, key: [UInt8], TableLayout, version: Int?)
    /// Delete the row under `id` when there is one (a last-writer-wins context's removal).
    case discard(id: Value, key: [UInt8], TableLayout)
    /// Write nothing; fail with a conflict unless the row under `id` still has `version`
    /// (`nil`: is still absent). A context's check of a record it read but did not change.
    case check(id: Value, key: [UInt8], TableLayout, version: Int?)

    var layout: TableLayout {
        switch self {
        case .insert(_, let layout, _), .upsert(_, let layout, _), .remove(_, _, let layout, _),
            .discard(_, _, let layout), .check(_, _, let layout, _):
            layout
        }
    }

    /// The row it writes, for an insert or an upsert.
    var row: PreparedRow? {
        switch self {
        case .insert(let row, _, _), .upsert(let row, _, _): row
        case .remove, .discard, .check: nil
        }
    }
}
