import DataStorePostgres
import Foundation
import ModelConformance
import Testing

/// The store battery (``StoreConformance``) on PostgreSQL: one store per scenario, and collection
/// names of the scenario's own (the server is shared with every other test).
@Suite("Store battery: PostgreSQL", .enabled(if: PostgresTestServer.isConfigured, PostgresTestServer.skipReason))
struct PostgresStoreBatteryTests {
    @Test(.timeLimit(.minutes(5)), arguments: StoreConformance.scenarios)
    func conforms(_ scenario: StoreScenario) async throws {
        let store = try await PostgresTestServer.store(options: PostgresStore.Options(readers: 2))
        defer { store.close() }
        try await scenario.run(StoreUnderTest(store: store, prefix: PostgresTestServer.uniqueName("battery")))
    }
}
