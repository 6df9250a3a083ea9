import DataStoreKit
import Foundation
import ModelConformance
import Testing

/// The store battery (``StoreConformance``) on the LMDB store: a fresh in-memory store per scenario.
@Suite("Store battery: LMDB")
struct StoreBatteryTests {
    @Test(.timeLimit(.minutes(5)), arguments: StoreConformance.scenarios)
    func conforms(_ scenario: StoreScenario) async throws {
        let store = try DataStore.inMemory()
        defer { store.close() }
        try await scenario.run(StoreUnderTest(store: store, prefix: "lmdb"))
    }
}
