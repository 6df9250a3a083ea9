import DataStoreCore

extension DataStore {
    /// Adds `definition` to the stored collection `name` and builds it from the records before
    /// returning; the collection's other indexes are left as they are.
    ///
    /// - Throws: ``/DataStoreCore/DataStoreError`` `.notFound` when there is no such collection; `.schemaMismatch`
    ///   for an invalid definition or one whose name is taken by another definition;
    ///   `.invalidValue` / `.uniqueViolation` when stored records break it (it is then not added).
    public func addIndex(_ definition: IndexDefinition, to name: String, buildChunk: Int = 1_000) async throws {
        let storage = try storage(named: name)
        if let existing = storage.indexes.first(where: { $0.name == definition.name }),
            existing.definition != definition
        {
            throw DataStoreError(
                .schemaMismatch,
                "collection \(name) already has an index \(definition.name) (\(existing.definition)); "
                    + "drop it first to redefine it")
        }
        _ = try await openCollection(
            name, idField: storage.idField, indexes: [definition], buildChunk: buildChunk, mode: .adding)
    }

    /// Drops the index `indexName` of the stored collection `name`, with its data. This, and a
    /// declaration made with ``UndeclaredIndexes/drop``, are the only ways an index is dropped.
    ///
    /// - Returns: The definition of the dropped index.
    /// - Throws: ``/DataStoreCore/DataStoreError`` `.notFound` naming the collection's indexes when it has no
    ///   such index; `.storage` when the store cannot be written.
    @discardableResult
    public func dropIndex(named indexName: String, from name: String) async throws -> IndexDefinition {
        let storage = try storage(named: name)
        let current = storage.indexes
        guard let dropped = current.first(where: { $0.name == indexName }) else {
            let names = current.map(\.name)
            throw DataStoreError(
                .notFound,
                "collection \(name) has no index \(indexName); "
                    + (names.isEmpty
                        ? "it has no secondary indexes" : "its indexes are " + names.joined(separator: ", ")))
        }
        _ = try await openCollection(
            name, idField: storage.idField, indexes: [], buildChunk: 1_000,
            mode: .dropping(indexName))
        return dropped.definition
    }

    /// Declares `indexes` on the stored collection `name`, keeping its id field, as
    /// ``collection(_:mapping:indexes:indexBuildChunk:undeclaredIndexes:)`` does: new ones are
    /// built, redefined ones rebuilt, and those left out kept or dropped as `undeclaredIndexes` says.
    public func redeclareIndexes(
        _ indexes: [IndexDefinition], on name: String, buildChunk: Int = 1_000,
        undeclaredIndexes: UndeclaredIndexes = .keep
    ) async throws {
        let storage = try storage(named: name)
        _ = try await openCollection(
            name, idField: storage.idField, indexes: indexes, buildChunk: buildChunk,
            mode: .declaration(undeclaredIndexes))
    }
}
