public import DataStoreCore

/// A unit of work: staged adds, puts, updates and removals over one snapshot of a store, read back
/// as staged, and saved as one change set (the LMDB store's `Context`, the PostgreSQL store's
/// `PostgresContext`). A child saves into its parent; only a root's save reaches the store.
///
/// The protocol is closed: do not declare new conformances. A collection passed to a unit of work
/// must be one of the same store's; another store's is refused with `.invalidValue`.
public protocol UnitOfWork: AnyObject, Sendable {
    /// What the save does when records changed underneath.
    var policy: ConflictPolicy { get }
    /// Whether anything is staged.
    var hasChanges: Bool { get }

    /// The object as this unit of work sees it: staged, or from its snapshot.
    /// - Throws: ``/DataStoreCore/DataStoreError`` `.notFound`, `.snapshotExpired`.
    func get<Object>(id: Value, from collection: any DocumentCollection<Object>) throws -> Object
    /// The objects matching `params` as this unit of work sees them.
    func query<Object>(
        _ collection: any DocumentCollection<Object>, params: [String: Value]?, options: [String: Value]?
    ) throws -> [Object]
    /// Stages adding `object` (a new id when it has none); returns it as it will be stored.
    func add<Object>(_ object: Object, to collection: any DocumentCollection<Object>) throws -> Object
    /// Stages storing `object` under `id`, replacing what is there.
    func put<Object>(id: Value, object: Object, in collection: any DocumentCollection<Object>) throws -> Object
    /// Stages removing the object stored under `id`; returns it.
    func remove<Object>(id: Value, from collection: any DocumentCollection<Object>) throws -> Object
    /// Stages a partial update of the object under `id` (fields by path: ``/DataStoreCore/FieldUpdate``);
    /// returns the object as updated.
    func update<Object>(id: Value, _ update: FieldUpdate, in collection: any DocumentCollection<Object>) throws
        -> Object
    /// Stages removing every object matching `params`; returns how many.
    func remove<Object>(params: [String: Value]?, from collection: any DocumentCollection<Object>) throws -> Int

    /// Saves what is staged: into the parent for a child, as one change set for a root.
    /// - Returns: The commit's identity (`nil` for a child, or when nothing was staged).
    /// - Throws: ``/DataStoreCore/DataStoreError`` `.conflict` listing what changed underneath;
    ///   the writes' own errors; `.outcomeUnknown` when the commit's fate could not be learned.
    @discardableResult
    func save() async throws -> CommitID?
    /// Drops what is staged.
    func discard()
    /// Takes a fresh snapshot of the store for later reads (staged changes are kept).
    func refresh()
    /// A child unit of work (call ``newChild()``).
    func _newChild() -> any UnitOfWork
}

extension UnitOfWork {
    /// A child unit of work: it reads through this one, and its save stages into this one.
    public func newChild() -> any UnitOfWork { _newChild() }

    /// Stages setting and removing fields of the object under `id` (``update(id:_:in:)`` with a
    /// ``/DataStoreCore/FieldUpdate`` of them); returns the object as updated.
    @discardableResult
    public func update<Object>(
        id: Value, set: [String: Value], unset: [String], in collection: any DocumentCollection<Object>
    ) throws -> Object {
        try update(id: id, FieldUpdate(set: set, unset: unset), in: collection)
    }
}

/// The refusal of a collection that belongs to another store than the unit of work's.
package func foreignCollection(_ name: String, store: String) -> DataStoreError {
    DataStoreError(
        .invalidValue,
        "collection \(name) belongs to another store than this unit of work's (\(store)): stage its changes in a "
            + "unit of work of its own store")
}
