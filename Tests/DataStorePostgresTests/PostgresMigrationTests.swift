import DataStoreCore
import DataStorePostgres
import Foundation
import Testing

/// `PostgresStore.open(url:options:migrator:)`; the migrations' semantics are the store battery's
/// (`StoreConformance`), run on both backends.
@Suite("PostgreSQL: migrations at open", .enabled(if: PostgresTestServer.isConfigured, PostgresTestServer.skipReason))
struct PostgresMigrationTests {
    @Test("open(url:migrator:) sets up collections the database does not hold, and runs each migration once")
    func opensAndMigrates() async throws {
        let name = PostgresTestServer.uniqueName("opened")
        var migrator = Migrator()
        migrator.registerMigration("\(name) v1") { migration in
            migration.createCollection(name, idField: "key", indexes: [IndexDefinition("n")])
        }
        let store = try await PostgresStore.open(url: "", migrator: migrator)
        let items = try await store.documentCollection(name)
        #expect(items.mapping.idField == "key" && items.indexes.map(\.name) == ["n"])
        _ = try await items.add(object: ["key": "k", "n": 1])
        store.close()
        let again = try await PostgresStore.open(url: "", migrator: migrator)
        defer { again.close() }
        #expect(try migrator.appliedMigrations(in: again) == ["\(name) v1"])
        #expect(try await again.documentCollection(name).count(params: ["n": 1]) == 1)
    }
}
