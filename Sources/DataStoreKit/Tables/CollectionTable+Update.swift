import DataStoreCore
import LMDB

extension CollectionTable {
    /// Applies `changes` to the record stored under `id` inside `transaction` — read, merged and
    /// written back with its index entries in one step, so no other write comes between — and
    /// returns the document as stored.
    ///
    /// - Parameter check: Refuses a merged document the model could not read back (it throws).
    /// - Throws: ``/DataStoreCore/DataStoreError/Code/notFound`` naming the id; `.codec` for a record that cannot
    ///   be decoded; the errors of ``prepare(_:id:keptObjectID:)`` and of writing.
    func update(
        id: Value, changes: FieldChanges, check: (Document) throws -> Void, in transaction: inout WriteTransaction
    ) throws -> Document {
        let key = try idKey(id)
        let stored = try transaction.withValue(forKey: key, in: records) { try decodeDocument($0, id: "\(id)") }
        guard let stored else { throw DataStoreError(.notFound, "no object with id \(id) in \(name)") }
        if changes.isEmpty { return stored }
        let merged = try changes.applied(to: stored, target: "\(name)/\(id)")
        try check(merged)
        try write(try prepare(merged, id: id), mode: .upsert, in: &transaction)
        return merged
    }

    /// Removes every record matching `query`'s conditions, with their index entries, inside
    /// `transaction`, and returns their ids.
    ///
    /// The plan's candidates are walked in the transaction, reading only each match's id field
    /// (no document is built); the removals follow the walk, one record at a time.
    /// - Complexity: that of running the plan, plus O(log n) per record removed.
    func removeMatching(_ query: Query, in transaction: inout WriteTransaction) throws -> [Value] {
        let plan = plan(query)
        let idField = self.idField
        let ids = try QueryExecutor(storage: self, plan: plan).run(in: transaction) { body, _ in
            try RecordCodec.field(idField, in: body) ?? .null
        }
        for id in ids { _ = try remove(id: id, in: &transaction) }
        return ids
    }
}
