import DataStoreCore
import Foundation
import ModelConformance
import Testing
@testable import DataStoreKit

/// Prepared queries answer as the seed's dictionary does with the same values written in, and
/// refuse bad parameters with errors that name them.
@Suite("Prepared queries")
struct PreparedQueryTests {
    static let operators = ["", " ==", " !=", " <", " <=", " >", " >=", " in", " !in", " ^=", " exists"]

    /// The kind of parameter that takes `value`; `nil` (null) keeps the value fixed.
    static func kind(of value: Value) -> ParameterKind? {
        ParameterKind.allCases.first { $0.admits(value) }
    }

    /// A random value of `kind`, from the values `DifferentialTests` stores.
    static func randomValue(of kind: ParameterKind, _ rng: inout SeededGenerator) -> Value {
        switch kind {
        case .bool: .bool(Bool.random(using: &rng))
        case .number:
            Bool.random(using: &rng)
                ? .int(Int64.random(in: -3...3, using: &rng)) : .double(Double(Int.random(in: -6...6, using: &rng)) / 2)
        case .string: .string(["", "a", "ab", "b", "ba", "z", "x", "q"].randomElement(using: &rng)!)
        case .bytes: .bytes([UInt8.random(in: 0...2, using: &rng)])
        case .array:
            .array([DifferentialTests.randomValue(&rng) ?? .int(1), DifferentialTests.randomValue(&rng) ?? .null])
        }
    }

    /// A random shape: keys with values (as `DifferentialTests.randomQuery`), some made parameters.
    static func randomShape(_ rng: inout SeededGenerator) -> (params: [String: Value], kinds: [String: ParameterKind]) {
        var params: [String: Value] = [:]
        var kinds: [String: ParameterKind] = [:]
        for _ in 0..<Int.random(in: 1...3, using: &rng) {
            let op = operators.randomElement(using: &rng)!
            let key = ["a", "b", "c", "id", "tags"].randomElement(using: &rng)! + op
            var value = DifferentialTests.randomValue(&rng) ?? .null
            if op == " in" || op == " !in" { value = .array([value, DifferentialTests.randomValue(&rng) ?? .int(1)]) }
            if op == " ^=" { value = .string(["", "a", "b", "q"].randomElement(using: &rng)!) }
            if op == " exists" { value = .bool(Bool.random(using: &rng)) }
            if [" <", " <=", " >", " >="].contains(op) && value == .null { value = .int(1) }
            params[key] = value
            if Int.random(in: 0..<4, using: &rng) != 0, let kind = kind(of: value) { kinds[key] = kind }
        }
        return (params, kinds)
    }

    @Test(
        "a prepared query answers as the dictionary with its values, over random data and values",
        arguments: [
            UInt64(11), 12, 13
        ])
    func differential(seed: UInt64) async throws {
        var rng = SeededGenerator(seed: seed)
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let collection = try await DifferentialTests.indexedDocuments(in: temporary.store)
        for id in 0..<100 { _ = try await collection.add(object: DifferentialTests.randomDocument(id, &rng)) }
        for _ in 0..<40 {
            let (params, kinds) = Self.randomShape(&rng)
            var options: [String: Value] = [:]
            if Bool.random(using: &rng) {
                options["sort"] = .array([.string(["a", "-b", "id"].randomElement(using: &rng)!)])
            }
            if Bool.random(using: &rng) { options["limit"] = .int(Int64.random(in: 1...6, using: &rng)) }
            let prepared = try collection.prepareQuery(
                params: params.mapValues { .value($0) }.merging(kinds.mapValues { .parameter($0) }) { $1 },
                options: options)
            #expect(
                prepared.parameters == kinds.keys.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) })
            for _ in 0..<5 {
                let values = kinds.mapValues { Self.randomValue(of: $0, &rng) }
                let written = params.merging(values) { $1 }
                let parsed = try Query(params: written, options: options)
                #expect(try prepared.query(values) == parsed, "\(written) \(options)")
                let expected = try await collection.query(params: written, options: options).map { $0["id"]! }
                let actual = try await prepared.run(values).map { $0["id"]! }
                if parsed.sort.isEmpty {
                    // Without a sort the order is the plan's, and the two may choose differently.
                    #expect(Set(actual) == Set(expected) && actual.count == expected.count, "\(parsed)")
                } else {
                    let plan = try prepared.explain(values)
                    #expect(actual == expected, "\(parsed) | \(plan)")
                }
            }
        }
    }

    @Test("runs plan afresh once the collection's indexes change")
    func indexChange() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let notes =
            try await temporary.store.collection("notes", mapping: .codable(idField: "id"), indexes: [])
            as StoreCollection<Note>
        for index in 0..<20 { _ = try await notes.add(object: note("n\(index)", from: "u\(index % 4)")) }
        let prepared = try notes.prepareQuery(params: ["from_user_key": .parameter(.string)])
        #expect(try prepared.explain(["from_user_key": "u1"]).description.hasPrefix("full scan"))
        #expect(try await prepared.run(["from_user_key": "u1"]).count == 5)
        let indexed =
            try await temporary.store.collection(
                "notes", mapping: .codable(idField: "id"), indexes: [IndexDefinition("from_user_key")])
            as StoreCollection<Note>
        #expect(try prepared.explain(["from_user_key": "u2"]).description.hasPrefix("index scan of from_user_key"))
        let expected = try await indexed.query(params: ["from_user_key": "u2"], options: nil).map(\.id)
        #expect(try await prepared.run(["from_user_key": "u2"]).map(\.id) == expected)
    }

    @Test("a run names a missing, an unknown or a wrong-typed parameter, and reads nothing")
    func bindingErrors() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let notes =
            try await temporary.store.collection("notes", mapping: .codable(idField: "id"), indexes: [])
            as StoreCollection<Note>
        let prepared = try notes.prepareQuery(
            params: ["from_user_key": .parameter(.string), "created_ts >=": .parameter(.number), "type": .value("text")]
        )
        #expect(prepared.parameters == ["created_ts >=", "from_user_key"])
        let cases: [([String: Value], String)] = [
            (["created_ts >=": 1], "prepared query parameter \"from_user_key\" has no value bound"),
            (
                ["created_ts >=": 1, "from_user_key": 5],
                "prepared query parameter \"from_user_key\" needs a string, not int 5"
            ),
            (
                ["created_ts >=": "x", "from_user_key": "u1"],
                "prepared query parameter \"created_ts >=\" needs a number, not string \"x\""
            ),
            (
                ["created_ts >=": 1, "from_user_key": "u1", "type": "video"],
                "\"type\" is not a parameter of this prepared query; its parameters are \"created_ts >=\", \"from_user_key\""
            ),
            (
                ["created_ts >=": 1, "from_user": "u1"],
                "\"from_user\" is not a parameter of this prepared query; its parameters are \"created_ts >=\", \"from_user_key\""
            )
        ]
        for (values, message) in cases {
            let error = await #expect(throws: DataStoreError.self) { try await prepared.run(values) }
            #expect(error?.code == .invalidQuery)
            #expect(error?.message == message)
        }
        #expect(try await prepared.run(["created_ts >=": 1, "from_user_key": "u1"]).isEmpty)
    }

    @Test("preparing refuses a bad key, a kind its operator cannot take and a bad option")
    func preparingErrors() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let notes =
            try await temporary.store.collection("notes", mapping: .codable(idField: "id"), indexes: [])
            as StoreCollection<Note>
        let cases: [([String: QueryParameter], [String: Value]?, DataStoreError.Code, String)] = [
            (
                ["tags in": .parameter(.string)], nil, .invalidQuery,
                "query key \"tags in\" cannot take a string parameter; its operator takes array"
            ),
            (
                ["created_ts <": .parameter(.array)], nil, .invalidQuery,
                "query key \"created_ts <\" cannot take a array parameter; its operator takes bool, number, string, bytes"
            ),
            (
                ["a ~": .parameter(.string)], nil, .invalidQuery,
                "query key \"a ~\" has an unknown operator \"~\"; the operators are =, ==, !=, <, <=, >, >=, in, !in, ^= and exists"
            ),
            (
                ["a": .parameter(.string)], ["limit": "x"], .invalidOption,
                "query option \"limit\" must be a non-negative integer, not string \"x\""
            )
        ]
        for (params, options, code, message) in cases {
            let error = #expect(throws: DataStoreError.self) {
                try notes.prepareQuery(params: params, options: options)
            }
            #expect(error?.code == code)
            #expect(error?.message == message)
        }
    }
}
