// The conformance battery against Restify on the test server, and checks of the battery itself.
import DataStoreCore
import DataStoreREST
import ModelConformance
import Testing

@Suite("Restify conformance")
struct RestifyConformanceTests {
    @Test("Restify on the test server passes", arguments: ModelConformance.scenarios)
    func conforms(_ scenario: Scenario) async throws {
        try await scenario.run(try Models.freshMessages())
    }
}

@Suite("The conformance battery itself")
struct ConformanceBatteryTests {
    @Test("the reference model passes", arguments: ModelConformance.scenarios)
    func referencePasses(_ scenario: Scenario) async throws {
        try await scenario.run(ReferenceModel<ConformanceMessage>(mapping: .objectCoder))
    }

    @Test("a model that loses a field fails the battery")
    func brokenModelFails() async throws {
        let scenario = try #require(ModelConformance.scenarios.first { $0.name == "put changes the message" })
        await withKnownIssue("the broken model ignores put") {
            try await scenario.run(IgnoresPut())
        }
    }

    @Test("a model that answers the wrong error code fails the battery")
    func wrongCodeFails() async throws {
        let scenario = try #require(
            ModelConformance.scenarios.first { $0.name == "add of a duplicate id is duplicateID and changes nothing" })
        await withKnownIssue("the broken model replaces on add") {
            try await scenario.run(IgnoresPut(addReplaces: true))
        }
    }
}

/// A model that is wrong on purpose: `put` stores nothing, and `add` may replace silently.
struct IgnoresPut: ModelProtocol {
    let reference = ReferenceModel<ConformanceMessage>(mapping: .objectCoder)
    var addReplaces = false

    func query(params: [String: Value]?, options: [String: Value]?) async throws -> [ConformanceMessage] {
        try await reference.query(params: params, options: options)
    }
    func get(id: Value) async throws -> ConformanceMessage { try await reference.get(id: id) }
    func put(id: Value, object: ConformanceMessage) async throws -> ConformanceMessage { object }
    func add(object: ConformanceMessage) async throws -> ConformanceMessage {
        if addReplaces, let id = object.id { return try await reference.put(id: .string(id), object: object) }
        return try await reference.add(object: object)
    }
    func remove(id: Value) async throws -> ConformanceMessage { try await reference.remove(id: id) }
    func all() async throws -> [ConformanceMessage] { try await reference.all() }
}
