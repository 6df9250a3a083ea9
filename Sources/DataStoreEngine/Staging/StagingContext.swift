package import DataStoreCore

/// A unit of work in a chain of contexts: a child reads through its parent and saves into it, so
/// what one context sees is its own staged changes over its parent's, over the root's snapshot.
/// Both stores' contexts share these rules through this protocol; only the snapshot differs.
package protocol StagingContext: AnyObject, Sendable {
    associatedtype Row: Sendable
    associatedtype Table: Sendable

    /// The context this one saves into, or `nil` for a root context.
    var parent: Self? { get }

    /// Runs `body` on this context's staged work, under its lock.
    func withWork<R: Sendable, E: Error>(_ body: (inout StagedWork<Row, Table>) throws(E) -> R) throws(E) -> R

    /// Resets this context as if new and returns the work it held (a child saving into its parent).
    func takeWork() -> StagedWork<Row, Table>
}

extension StagingContext {
    /// The staged change to `key` seen from this context: its own, else its parent's, and so on.
    package func stagedChange(_ key: StagedKey) -> StagedChange<Row>? {
        if let change = withWork({ work in work.changes.isEmpty ? nil : work.changes[key] }) { return change }
        return parent?.stagedChange(key)
    }

    /// Every staged change to `collection` seen from this context (children override parents).
    package func stagedChanges(in collection: String) -> [Value: StagedChange<Row>] {
        let inherited = parent?.stagedChanges(in: collection) ?? [:]
        return withWork { work in
            if work.changes.isEmpty { return inherited }
            var merged = inherited
            for (key, change) in work.changes where key.collection == collection { merged[key.id] = change }
            return merged
        }
    }

    /// Remembers the version `key` had when first read or changed here (for conflict detection).
    package func remember(_ key: StagedKey, version: Int?, table: Table) {
        withWork { work in work.remember(key, version: version, table: table) }
    }

    /// Stages `change` to `key` in this context, first remembering `read`, the version just read
    /// for it, when there is one.
    /// - Throws: `.conflict` while this context's save is committing.
    package func stage(_ change: StagedChange<Row>, for key: StagedKey, table: Table, read: Int?? = .none)
        throws(DataStoreError)
    {
        try withWork { work throws(DataStoreError) in try work.stage(change, for: key, table: table, read: read) }
    }

    /// Saves this child's work into `parent`, leaving this context empty.
    /// - Throws: `.conflict` while the parent's save is committing (nothing moves).
    package func merge(into parent: Self) throws(DataStoreError) {
        // The parent's lock first, then the child's (the only place both are held): the child's
        // changes are taken only once the parent is known to accept them.
        try parent.withWork { work throws(DataStoreError) in try work.absorb(takeWork) }
    }

    /// The documents matching `query` in this context's view of `collection`: the snapshot's
    /// matches (`read`, given what to ask it, returning each document with its stored version)
    /// with this chain's staged changes laid over them. Each stored record read is remembered.
    package func viewDocuments(
        matching query: Query, in collection: String, idField: String, table: Table,
        document: (Row) throws -> Document,
        read: (Query) throws -> [(document: Document, version: Int?)]
    ) throws -> [Document] {
        let staged = stagedChanges(in: collection)
        // Without staged changes the store answers alone, limit and all; with them, the snapshot's
        // matches are merged with the staged documents and then sorted and cut.
        let rows = try read(staged.isEmpty ? query : Query(conditions: query.conditions, sort: query.sort))
        var documents: [Document] = []
        var seen: [(StagedKey, Int?)] = []
        for (document, version) in rows {
            guard let id = document[idField] else { continue }
            seen.append((StagedKey(collection: collection, id: id), version))
            if staged[id] == nil { documents.append(document) }
        }
        withWork { work in
            for (key, version) in seen { work.remember(key, version: version, table: table) }
        }
        if staged.isEmpty { return documents }
        for change in staged.values {
            if case .insert(let row) = change { documents.append(try document(row)) }
            if case .upsert(let row) = change { documents.append(try document(row)) }
        }
        return query.evaluate(documents, idField: idField)
    }
}
