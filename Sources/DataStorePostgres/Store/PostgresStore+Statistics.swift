import DataStoreEngine

extension PostgresStore {
    /// Collections with row counts and sizes, indexes with entry counts and sizes, the server's
    /// version and the change feed's horizon, over one snapshot.
    /// - Throws: ``/DataStoreCore/DataStoreError`` `.network` when the server cannot be reached.
    /// - Complexity: O(rows): PostgreSQL counts rows by reading them.
    public func statistics() throws -> PostgresStatistics {
        let names = try collectionNames()
        let feed = changeSource.options.isEnabled
        let clock = changeSource.clock
        return try readSchemaAndTables("reading statistics") { connection in
            let server = try connection.execute(
                "SELECT current_setting('server_version'), current_database(), "
                    + "\(clock.snapshotXmin) - 1, "
                    + (feed ? "(SELECT count(DISTINCT commit) FROM _changes)" : "0::int8"))
            var collections: [PostgresStatistics.Collection] = []
            for name in names {
                guard let layout = try SchemaCatalog.load(name, on: connection) else { continue }
                collections.append(try Self.statistics(of: layout, on: connection))
            }
            return PostgresStatistics(
                serverVersion: server.text(0, 0) ?? "", database: server.text(0, 1) ?? "", collections: collections,
                lastCommit: Int(server.int(0, 2) ?? 0), retainedCommits: Int(server.int(0, 3) ?? 0))
        }
    }

    private static func statistics(of layout: TableLayout, on connection: Connection) throws
        -> PostgresStatistics.Collection
    {
        let table = try connection.execute(
            "SELECT count(*), pg_total_relation_size(to_regclass($1)) FROM \(layout.table)", [.text(layout.table)])
        var indexes: [PostgresStatistics.Index] = []
        for index in layout.indexes {
            let (source, relation) =
                index.definition.multiValue
                ? ("SELECT count(*) FROM \(layout.sideTable(index))", layout.sideTable(index))
                : ("SELECT count(\(index.keyColumn)) FROM \(layout.table)", "\(layout.table)_k\(index.column)")
            let result = try connection.execute(
                "SELECT (\(source)), COALESCE(pg_total_relation_size(to_regclass($1)), 0)", [.text(relation)])
            indexes.append(
                PostgresStatistics.Index(
                    definition: index.definition, declared: index.declared, entries: Int(result.int(0, 0) ?? 0),
                    bytes: Int(result.int(0, 1) ?? 0)))
        }
        return PostgresStatistics.Collection(
            name: layout.name, idField: layout.idField, table: layout.table, documents: Int(table.int(0, 0) ?? 0),
            bytes: Int(table.int(0, 1) ?? 0), indexes: indexes)
    }
}
