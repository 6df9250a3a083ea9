import DataStoreCore
import DataStoreKit
import DataStorePostgres
import ModelConformance
import Testing

/// The shared ModelProtocol battery (the one the LMDB store and Restify pass), against PostgreSQL.
@Suite(
    "ModelProtocol conformance: PostgreSQL store",
    .enabled(if: PostgresTestServer.isConfigured, PostgresTestServer.skipReason))
struct PostgresConformanceTests {
    @Test(arguments: ModelConformance.scenarios)
    func conforms(_ scenario: Scenario) async throws {
        let store = try await PostgresTestServer.sharedStore()
        let messages = try await store.collection(
            ConformanceMessage.self, name: PostgresTestServer.uniqueName("Message"),
            indexes: [
                IndexDefinition("created_ts"),
                IndexDefinition("pair", fields: ["from_user_key", "to_user_key"])
            ])
        try await scenario.run(messages)
    }

    @Test("the battery also passes with no secondary index at all (full scans)", arguments: ModelConformance.scenarios)
    func conformsWithoutIndexes(_ scenario: Scenario) async throws {
        let store = try await PostgresTestServer.sharedStore()
        try await scenario.run(
            try await store.collection(ConformanceMessage.self, name: PostgresTestServer.uniqueName("Message")))
    }
}
