/// The fields a partial update sets and removes: `update(id:set:unset:)`'s arguments, checked
/// once and applied to a stored document.
package struct FieldChanges: Sendable, Hashable {
    /// Top-level fields to store, with their new values (``Value/null`` stores an explicit null).
    package var assigned: [String: Value]
    /// Top-level fields to remove; a field the document lacks is no error.
    package var removed: [String]

    package init(set: [String: Value], unset: [String]) {
        self.assigned = set
        self.removed = unset
    }

    /// Whether the changes leave every document as it was.
    package var isEmpty: Bool { assigned.isEmpty && removed.isEmpty }

    /// Checks that no change names the id field, an empty field, or one field twice.
    ///
    /// - Parameters:
    ///   - idField: The model's id field, which an update may not touch.
    ///   - target: What is updated, for the message (`"Message/42"`).
    /// - Throws: ``DataStoreError/Code/invalidValue`` naming the field.
    package func validate(idField: String, target: String) throws(DataStoreError) {
        for name in Array(assigned.keys) + removed {
            if name == idField {
                throw DataStoreError(
                    .invalidValue,
                    "an update of \(target) may not set or unset its id field \(idField); "
                        + "remove the object and add it under the new id")
            }
            if name.isEmpty { throw DataStoreError(.invalidValue, "an update of \(target) names an empty field") }
        }
        if Set(removed).count != removed.count {
            throw DataStoreError(.invalidValue, "an update of \(target) unsets a field twice")
        }
        if let both = removed.first(where: { assigned[$0] != nil }) {
            throw DataStoreError(.invalidValue, "an update of \(target) both sets and unsets field \(both)")
        }
    }

    /// `document` with these changes: every field of `set` stored, every field of `unset` removed.
    package func applied(to document: Document) -> Document {
        var changed = document
        for (name, value) in assigned { changed[name] = value }
        for name in removed { changed[name] = nil }
        return changed
    }
}
