import DataStoreCore
import DataStoreKit
import ModelConformance
import Testing

/// The shared ModelProtocol battery (the one Restify passes too), against the LMDB store.
@Suite("ModelProtocol conformance: LMDB store")
struct StoreConformanceTests {
    @Test(arguments: ModelConformance.scenarios)
    func conforms(_ scenario: Scenario) async throws {
        let store = try DataStore.inMemory()
        let messages = try await store.collection(
            ConformanceMessage.self, name: "Message",
            indexes: [
                IndexDefinition("created_ts"),
                IndexDefinition("pair", fields: ["from_user_key", "to_user_key"])
            ])
        try await scenario.run(messages)
        #expect(try store.check().isEmpty)
    }

    @Test("the battery also passes with no secondary index at all (full scans)", arguments: ModelConformance.scenarios)
    func conformsWithoutIndexes(_ scenario: Scenario) async throws {
        let store = try DataStore.inMemory()
        try await scenario.run(try await store.collection(ConformanceMessage.self, name: "Message"))
    }
}

/// The battery against a collection seen through a context: staged writes, reads of them, and a
/// save that commits what the scenario left.
@Suite("ModelProtocol conformance: a context's view of a collection")
struct ContextConformanceTests {
    @Test(arguments: ModelConformance.scenarios)
    func conforms(_ scenario: Scenario) async throws {
        let store = try DataStore.inMemory()
        let messages = try await store.collection(
            ConformanceMessage.self, name: "Message", indexes: [IndexDefinition("created_ts")])
        let context = store.newContext()
        let view = context.collection(messages)
        try await scenario.run(view)
        let seen = try await view.all()
        try await context.save()
        #expect(ModelConformance.ids(try await messages.all()) == ModelConformance.ids(seen))
        #expect(try store.check().isEmpty)
    }
}

@Suite("A context's view with the seed's callback forms")
struct ContextCallbackTests {
    @Test("callback calls on a context's view stage and read staged writes; save commits them")
    func callbacks() async throws {
        let store = try DataStore.inMemory()
        let messages = try await store.collection(ConformanceMessage.self, name: "Message")
        let context = store.newContext()
        let view = context.collection(messages)
        let added: ConformanceMessage? = await withCheckedContinuation { continuation in
            view.add(object: ConformanceMessage(id: "1", from: "a", message: "hi")) { _, object in
                continuation.resume(returning: object)
            }
        }
        #expect(added?.id == "1")
        let updated: ConformanceMessage? = await withCheckedContinuation { continuation in
            view.update(id: "1", set: ["message": "changed"]) { _, object in continuation.resume(returning: object) }
        }
        #expect(updated?.message == "changed")
        let found: [ConformanceMessage]? = await withCheckedContinuation { continuation in
            view.query(params: ["from_user_key": "a"], options: nil) { _, objects in
                continuation.resume(returning: objects)
            }
        }
        #expect(found?.map(\.message) == ["changed"])
        #expect(try await messages.all().isEmpty)
        try await context.save()
        #expect(try await messages.get(id: "1").message == "changed")
        let removed: Int? = await withCheckedContinuation { continuation in
            messages.remove(params: ["from_user_key": "a"]) { _, count in continuation.resume(returning: count) }
        }
        #expect(removed == 1)
    }
}
