package import DataStoreCore

/// What a unit of work (an LMDB `Context`, a PostgreSQL context) holds for its save: the net
/// change per record in staging order, the version each record had when first read or changed
/// (for conflict detection), and the table of each collection touched (`Table`, the backend's).
package struct StagedWork<Row: Sendable, Table: Sendable>: Sendable {
    package typealias Change = StagedChange<Row>

    package private(set) var changes: [StagedKey: Change] = [:]
    /// The records changed, in the order first staged.
    package private(set) var order: [StagedKey] = []
    /// The version each record had when this context first read or changed it (`nil`: absent).
    package private(set) var versions: [StagedKey: Int?] = [:]
    /// The table of each collection touched: a short list (a unit of work usually touches one or
    /// two collections), searched in place rather than hashed.
    package private(set) var tables: [(collection: String, table: Table)] = []
    /// A root save is committing these changes: staging now would fold new changes into the ones
    /// being saved, so it is refused until the save ends.
    package var saving = false

    package init() {}

    /// The table of `collection`, when this work touched it.
    package func table(for collection: String) -> Table? {
        tables.first { $0.collection == collection }?.table
    }

    /// Notes the table of `collection`: the latest one staged or read through, unless `keeping`
    /// the one already noted.
    private mutating func note(_ table: Table, for collection: String, keeping: Bool = false) {
        guard let position = tables.firstIndex(where: { $0.collection == collection }) else {
            tables.append((collection, table))
            return
        }
        if !keeping { tables[position].table = table }
    }

    /// Remembers the version `key` had when first read or changed here.
    package mutating func remember(_ key: StagedKey, version: Int?, table: Table) {
        note(table, for: key.collection)
        if versions[key] == nil { versions[key] = .some(version) }
    }

    /// Folds `change` into what is staged for `key` (``StagedChange/fold(_:into:order:at:)``),
    /// first remembering `read`, the version just read for it, when there is one.
    /// - Throws: `.conflict` while a save of this work is committing (nothing is remembered).
    package mutating func stage(_ change: Change, for key: StagedKey, table: Table, read: Int?? = .none)
        throws(DataStoreError)
    {
        guard !saving else {
            throw DataStoreError(
                .conflict,
                "cannot stage \(key.collection)/\(key.id) while this context's save() is committing; "
                    + "stage it after the save returns, or in a child context (newChild())")
        }
        if let read {
            remember(key, version: read, table: table)
        } else {
            note(table, for: key.collection)
        }
        Change.fold(change, into: &changes, order: &order, at: key)
    }

    /// Takes a child's saved work into this, its parent's: later changes fold over earlier ones,
    /// and the earliest version known of each record is kept.
    /// - Throws: `.conflict` while this parent's own save is committing (nothing is taken).
    package mutating func absorb(_ take: () -> StagedWork) throws(DataStoreError) {
        guard !saving else {
            throw DataStoreError(
                .conflict,
                "cannot save a child into its parent while the parent's save() is committing; "
                    + "save the child after it returns")
        }
        let child = take()
        for (collection, table) in child.tables { note(table, for: collection, keeping: true) }
        for key in child.order {
            if let change = child.changes[key] { Change.fold(change, into: &changes, order: &order, at: key) }
        }
        for (key, version) in child.versions where versions[key] == nil { versions[key] = version }
    }

    /// Marks this work as saving and returns what to save, or `nil` when there is nothing: no
    /// change, and no record read whose version a save under `policy` would check.
    /// - Throws: `.conflict` when a save is already committing.
    package mutating func beginSaving(policy: ConflictPolicy) throws(DataStoreError) -> StagedWork? {
        guard !saving else {
            throw DataStoreError(
                .conflict, "this context's save() is already committing; call it again after it returns")
        }
        if order.isEmpty && (policy == .lastWriterWins || versions.isEmpty) { return nil }
        saving = true
        return self
    }

    /// Drops what `saved` committed: its changes, and the versions it checked (nothing could be
    /// staged while it committed, so what is staged now is what was saved).
    package mutating func clear(saved: StagedWork) {
        changes = [:]
        order = []
        for key in saved.versions.keys { versions[key] = nil }
    }
}

extension StagedKey {
    /// "messages/42 (read version 3, now absent)": a record found changed underneath a context.
    package func changeDescription(read: Int?, now: Int?) -> String {
        let was = read.map { "version \($0)" } ?? "absent"
        let current = now.map { "version \($0)" } ?? "absent"
        return "\(collection)/\(id) (read \(was), now \(current))"
    }
}

extension DataStoreError {
    /// A save's conflict naming every record that changed underneath its context
    /// (``StagedKey/changeDescription(read:now:)``).
    package static func changedUnderneath(_ records: [String]) -> DataStoreError {
        DataStoreError(
            .conflict, "records changed since this context read them: " + records.sorted().joined(separator: ", "))
    }
}
