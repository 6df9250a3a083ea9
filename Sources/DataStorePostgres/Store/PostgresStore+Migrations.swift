public import DataStoreEngine

extension PostgresStore {
    /// Opens the store on the server `url` names (``open(url:options:)``) and runs `migrator`'s
    /// pending migrations.
    /// - Throws: The errors of ``open(url:options:)`` and ``/DataStoreEngine/Migrator/migrate(_:)``.
    public static func open(url: String, options: Options = Options(), migrator: Migrator) async throws
        -> PostgresStore
    {
        let store = try await open(url: url, options: options)
        do {
            try await migrator.migrate(store)
        } catch {
            store.close()
            throw error
        }
        return store
    }

    /// The names of the migrations recorded in `_migrations` as run, in name order.
    /// - Throws: ``/DataStoreCore/DataStoreError`` `.network`.
    public func appliedMigrations() throws -> [String] {
        try pool.read("reading the migrations run") { connection in
            let exists = try connection.execute("SELECT to_regclass('_migrations') IS NOT NULL")
            guard exists.bool(0, 0) == true else { return [] }
            let names = try connection.execute("SELECT name FROM _migrations ORDER BY name")
            return (0..<names.rowCount).compactMap { names.text($0, 0) }
        }
    }

    /// Runs `migration`'s steps and records its name in one transaction of the writer's, which
    /// also records the documents it rewrites in the change feed (call
    /// ``/DataStoreEngine/Migrator/migrate(_:)``).
    public func _apply(_ migration: Migration) async throws {
        let (ddl, clock, maxBytes) = (ddl, changeSource.clock, maxDocumentBytes)
        _ = try await writer.recorded { connection in
            try SchemaMigration.apply(migration, on: connection, ddl: ddl, clock: clock, maxBytes: maxBytes)
        }
    }
}
