import DataStoreCore

/// Named, ordered migrations, each run once per store — an LMDB store or a PostgreSQL one — as
/// GRDB's `DatabaseMigrator`:
///
/// ```swift
/// var migrator = Migrator()
/// migrator.registerMigration("v1: index created_ts") { $0.addIndex(IndexDefinition("created_ts"), to: "Message") }
/// migrator.registerMigration("v2: rename text") { $0.renameField("text", to: "message", in: "Message") }
/// try await migrator.migrate(store)     // runs those not yet recorded in the store, in order
/// ```
///
/// Each migration is atomic: its steps run in one write transaction that also records its name
/// in the store (an LMDB store's `_meta`, a server's `_migrations` table), and the documents it
/// rewrites reach the change feed as that commit's updates and removals. One that fails (a step throws, a unique index is broken, a collection
/// is missing) leaves the store as it was, and the migrations after it are not run:
/// ``migrate(_:)`` throws ``/DataStoreCore/DataStoreError/Code/migrationFailed`` naming it.
public struct Migrator: Sendable {
    /// The migrations in registration order.
    public private(set) var migrations: [Migration] = []
    private var duplicate: String?

    /// Creates a migrator with no migration.
    public init() {}

    /// Registers a migration under `name`, after the ones registered before; `define` adds its
    /// steps now.
    public mutating func registerMigration(_ name: String, _ define: (inout Migration) -> Void) {
        if migrations.contains(where: { $0.name == name }) { duplicate = duplicate ?? name }
        var migration = Migration(name: name)
        define(&migration)
        migrations.append(migration)
    }

    /// Runs every registered migration the store has not recorded, in order, each in its own
    /// transaction, and returns the names of those run.
    ///
    /// - Throws: ``/DataStoreCore/DataStoreError`` `.migrationFailed` naming the first migration that failed
    ///   (wrapping its error; the store is as it was before it, later ones not run) or a name
    ///   registered twice (nothing run); `.storage` when the store cannot be written.
    @discardableResult
    public func migrate(_ store: any DocumentStore) async throws -> [String] {
        if let duplicate {
            throw DataStoreError(.migrationFailed, "migration '\(duplicate)' is registered twice; nothing was run")
        }
        let applied = Set(try store.appliedMigrations())
        var run: [String] = []
        for migration in migrations where !applied.contains(migration.name) {
            do {
                try await store._apply(migration)
            } catch {
                let later = migrations.drop { $0.name != migration.name }.dropFirst().map { "'\($0.name)'" }
                let reason = (error as? DataStoreError)?.message ?? "\(error)"
                throw DataStoreError(
                    .migrationFailed,
                    "migration '\(migration.name)' failed and was rolled back: \(reason)"
                        + (later.isEmpty ? "" : "; not run: \(later.joined(separator: ", "))"), underlying: error)
            }
            run.append(migration.name)
        }
        return run
    }

    /// The names of the registered migrations the store has recorded as run.
    public func appliedMigrations(in store: any DocumentStore) throws -> [String] {
        let applied = Set(try store.appliedMigrations())
        return migrations.map(\.name).filter(applied.contains)
    }
}
