public import DataStoreEngine

extension PostgresStore {
    /// Adds `definition` to the stored collection `name` and builds it from its rows in chunks of
    /// `buildChunk`, leaving every other index as it is (`DataStore.addIndex(_:to:buildChunk:)`).
    /// - Throws: ``/DataStoreCore/DataStoreError`` `.notFound` naming the collection; `.schemaMismatch` when it
    ///   has another index of that name; `.uniqueViolation` when rows share values of a new unique index.
    public func addIndex(_ definition: IndexDefinition, to name: String, buildChunk: Int = 1_000) async throws {
        let stored = try await documentCollection(name)
        if let existing = stored.indexes.first(where: { $0.name == definition.name }), existing != definition {
            throw DataStoreError(
                .schemaMismatch,
                "collection \(name) already has an index \(definition.name) (\(existing)); drop it first to redefine it"
            )
        }
        try await redeclare(
            name, idField: stored.mapping.idField, indexes: [definition], mode: .adding, chunk: buildChunk)
    }

    /// Drops the index `indexName` of the stored collection `name`, with its column or side table.
    /// - Returns: The definition of the dropped index.
    /// - Throws: ``/DataStoreCore/DataStoreError`` `.notFound` naming the collection's indexes when it has none
    ///   of that name.
    @discardableResult
    public func dropIndex(named indexName: String, from name: String) async throws -> IndexDefinition {
        let stored = try await documentCollection(name)
        guard let dropped = stored.indexes.first(where: { $0.name == indexName }) else {
            let names = stored.indexes.map(\.name)
            throw DataStoreError(
                .notFound,
                "collection \(name) has no index \(indexName); "
                    + (names.isEmpty
                        ? "it has no secondary indexes" : "its indexes are " + names.joined(separator: ", ")))
        }
        try await redeclare(
            name, idField: stored.mapping.idField, indexes: [], mode: .dropping(indexName), chunk: 1_000)
        return dropped
    }

    private func redeclare(
        _ name: String, idField: String, indexes: [IndexDefinition], mode: ReconciliationMode, chunk: Int
    ) async throws {
        _ = try await writer.exclusive { [ddl] connection in
            try SchemaCatalog.declare(
                name, idField: idField, indexes: indexes, mode: mode, chunk: chunk, ddl: ddl, on: connection
            ).tag
        }
    }
}
