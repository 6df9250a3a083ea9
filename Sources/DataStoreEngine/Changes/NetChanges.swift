package import DataStoreCore

/// What one commit did to each collection's records, from the writes it made in order: each id is
/// listed once, as what the commit did to it overall — inserted (absent before, present after),
/// updated (present before and after) or removed (present before, absent after) — so a migration
/// that rewrites a document and then removes it lists it as removed, and one inserted and removed
/// in the same commit is not listed. Both stores build a commit's ``CollectionChanges`` with it.
package struct NetChanges: Sendable {
    /// A write to one record.
    package enum Write: Sendable {
        /// Stored where there was none.
        case inserted
        /// Stored in place of one.
        case updated
        /// Removed.
        case removed
    }

    /// Each collection's writes, in the order the collections were first written.
    private var collections: [(name: String, writes: [(id: Value, write: Write)])] = []

    package init() {}

    /// Whether no write was noted.
    package var isEmpty: Bool { collections.isEmpty }

    /// Notes that `write` was made to the record `id` of `collection`.
    package mutating func note(_ write: Write, _ id: Value, in collection: String) {
        // A commit usually writes one or two collections: a short list, not a dictionary.
        if let last = collections.indices.last, collections[last].name == collection {
            collections[last].writes.append((id, write))
        } else if let position = collections.firstIndex(where: { $0.name == collection }) {
            collections[position].writes.append((id, write))
        } else {
            collections.append((collection, [(id, write)]))
        }
    }

    /// Notes `other`'s writes after this one's.
    package mutating func append(_ other: NetChanges) {
        for (name, writes) in other.collections {
            for (id, write) in writes { note(write, id, in: name) }
        }
    }

    /// The changes per collection, in the order the collections were first written; collections
    /// whose writes cancelled out are left out.
    package var changes: [CollectionChanges] {
        collections.compactMap { name, writes in
            let changes = Self.net(writes, collection: name)
            return changes.inserted.isEmpty && changes.updated.isEmpty && changes.removed.isEmpty ? nil : changes
        }
    }

    /// `writes` as one change per id, in the order each id was first written.
    private static func net(_ writes: [(id: Value, write: Write)], collection: String) -> CollectionChanges {
        var changes = CollectionChanges(collection: collection)
        guard writes.count > 1 else {
            if let (id, write) = writes.first {
                append(id, existedBefore: write != .inserted, existsAfter: write != .removed, to: &changes)
            }
            return changes
        }
        // Whether each id existed before its first write, and exists after its last.
        var order: [Value] = []
        var states: [Value: (before: Bool, after: Bool)] = [:]
        for (id, write) in writes {
            if let state = states[id] {
                states[id] = (state.before, write != .removed)
            } else {
                order.append(id)
                states[id] = (write != .inserted, write != .removed)
            }
        }
        for id in order {
            let state = states[id]!
            append(id, existedBefore: state.before, existsAfter: state.after, to: &changes)
        }
        return changes
    }

    private static func append(_ id: Value, existedBefore: Bool, existsAfter: Bool, to changes: inout CollectionChanges)
    {
        switch (existedBefore, existsAfter) {
        case (false, true): changes.inserted.append(id)
        case (true, true): changes.updated.append(id)
        case (true, false): changes.removed.append(id)
        case (false, false): break
        }
    }
}
