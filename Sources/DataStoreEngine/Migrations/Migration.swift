public import DataStoreCore

/// One named migration's steps, run in order inside one write transaction by a ``Migrator``.
///
/// ```swift
/// migrator.registerMigration("v2: rename text, index type") { migration in
///     migration.renameField("text", to: "message", in: "Message")
///     migration.addIndex(IndexDefinition("type"), to: "Message")
/// }
/// ```
///
/// Steps name collections the store holds, or that an earlier step of the migration creates
/// (``createCollection(_:idField:indexes:)``), so that a migrator can set up an empty store.
public struct Migration: Sendable {
    /// The migration's name, recorded in the store once it has run.
    public let name: String
    /// The steps, in order, for the store that runs them.
    package private(set) var steps: [Step] = []

    /// One step of a migration.
    package enum Step: Sendable {
        /// Each document replaced by what the function returns, or removed when it returns `nil`.
        case transform(collection: String, @Sendable (Document) throws -> Document?)
        case addIndex(collection: String, IndexDefinition)
        case dropIndex(collection: String, name: String)
        /// The collection recorded, identified by its field, when the store does not hold it, and
        /// each of its indexes added unless it has one so defined.
        case createCollection(collection: String, idField: String, indexes: [IndexDefinition])

        /// The collection the step changes.
        package var collection: String {
            switch self {
            case .transform(let collection, _), .addIndex(let collection, _), .dropIndex(let collection, _),
                .createCollection(let collection, _, _):
                collection
            }
        }
    }

    init(name: String) { self.name = name }

    /// Creates the collection `name`, identified by `idField`, with `indexes`, when the store does
    /// not hold it. One it holds, identified by the same field, keeps what it has and gains those
    /// of `indexes` it lacks. A collection stored with another id field, or an index of one of
    /// these names defined otherwise, fails the migration with `.schemaMismatch`.
    public mutating func createCollection(_ name: String, idField: String = "id", indexes: [IndexDefinition] = []) {
        steps.append(.createCollection(collection: name, idField: idField, indexes: indexes))
    }

    /// Replaces every document of `collection` by what `transform` returns for it (its id field
    /// must stay as it was), or removes it when `transform` returns `nil`. Index entries follow.
    ///
    /// `transform` runs on the store's writer thread, inside the migration's transaction: it
    /// must not block or wait. An error it throws fails the migration. The documents it changes or
    /// removes are the migration commit's updates and removals in the change feed.
    public mutating func transformDocuments(
        in collection: String, _ transform: @escaping @Sendable (Document) throws -> Document?
    ) {
        steps.append(.transform(collection: collection, transform))
    }

    /// Renames the field `old` to `new` in every document of `collection` that has it (replacing
    /// a field already called `new` there).
    public mutating func renameField(_ old: String, to new: String, in collection: String) {
        transformDocuments(in: collection) { document in
            guard let value = document[old] else { return document }
            var renamed = document
            renamed[old] = nil
            renamed[new] = value
            return renamed
        }
    }

    /// Declares `definition` on `collection` and builds it from the documents, within the
    /// migration's transaction (a unique index that existing documents break fails it).
    public mutating func addIndex(_ definition: IndexDefinition, to collection: String) {
        steps.append(.addIndex(collection: collection, definition))
    }

    /// Drops the index `name` of `collection`, entries and all.
    public mutating func dropIndex(named name: String, from collection: String) {
        steps.append(.dropIndex(collection: collection, name: name))
    }
}
