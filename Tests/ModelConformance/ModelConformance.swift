// One battery of ModelProtocol checks, run against every implementation (the LMDB store, Restify).
public import DataStoreCore
public import Testing

/// One named check of the conformance battery.
///
/// `run` receives an **empty** model, first checks that it is empty, then exercises it and records
/// failures with `#expect` / `#require` (a thrown error fails the test too).
public struct Scenario: Sendable, CustomStringConvertible, CustomTestStringConvertible {
    /// What the scenario checks, such as `"add then get"`.
    public let name: String
    /// Runs the scenario against an empty model.
    public let run: @Sendable (any ModelProtocol<ConformanceMessage>) async throws -> Void

    /// Creates a scenario. The body runs after a check that the model is empty.
    ///
    /// - Parameters:
    ///   - name: What the scenario checks.
    ///   - body: The checks, given an empty model.
    public init(
        _ name: String, _ body: @escaping @Sendable (any ModelProtocol<ConformanceMessage>) async throws -> Void
    ) {
        self.name = name
        self.run = { model in
            let existing = try await model.all()
            try #require(
                existing.isEmpty, "scenario '\(name)' needs an empty model; it holds \(existing.count) objects")
            try await body(model)
        }
    }

    /// The name.
    public var description: String { name }
    /// The name, as swift-testing shows each argument.
    public var testDescription: String { name }
}

/// The conformance battery: every ``Scenario`` a ``ModelProtocol`` implementation must pass.
///
/// ```swift
/// @Test(arguments: ModelConformance.scenarios)
/// func conforms(_ scenario: Scenario) async throws {
///     try await scenario.run(makeEmptyModel())
/// }
/// ```
///
/// The semantics checked are those of `ModelProtocol` and docs/queries.md: `add` refuses a stored
/// id (`.duplicateID`) and generates unique ids when there is none; `put` replaces or inserts;
/// `get`/`remove` of an absent id — or of a null id, the seed's "object without an identifier" —
/// are `.notFound`; `remove` returns the object; queries take the seed's parameters and options.
public enum ModelConformance {
    /// Every scenario, each needing a fresh, empty model.
    public static let scenarios: [Scenario] = basicScenarios + queryScenarios + writeScenarios

    /// A model for the battery, of any implementation.
    public typealias Model = any ModelProtocol<ConformanceMessage>
}
