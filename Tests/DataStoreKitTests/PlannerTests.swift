import DataStoreCore
import Foundation
import Testing
@testable import DataStoreKit
@testable import DataStoreEngine

@Suite("Query planner")
struct PlannerTests {
    static func makeNotes(_ store: DataStore) async throws -> StoreCollection<Note> {
        try await store.collection(
            Note.self, idField: "id",
            indexes: [
                IndexDefinition("created_ts"),
                IndexDefinition("from_user_key"),
                IndexDefinition("pair", fields: ["from_user_key", "to_user_key", "created_ts"])
            ])
    }

    @Test("the plan chosen for each kind of query, in words")
    func explainTexts() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let notes = try await Self.makeNotes(temporary.store)
        let cases: [([String: Value]?, [String: Value]?, String)] = [
            (
                ["id": "n1"], nil,
                "primary key lookup of 1 id in Note; filter: id == \"n1\"; order: unspecified (scan order)"
            ),
            (
                ["id in": ["n1", "n2", "n1"]], nil,
                "primary key lookup of 2 ids in Note; filter: id in [\"n1\", \"n2\", \"n1\"]; order: unspecified (scan order)"
            ),
            (
                ["created_ts >=": 1437108600], ["limit": 100],
                "index scan of created_ts on Note (created_ts in [1437108600, inf]), forward; filter: created_ts >= 1437108600; "
                    + "order: unspecified (scan order); limit 100 pushed into the scan"
            ),
            (
                ["from_user_key": "u1", "to_user_key": "u2"], nil,
                "index scan of pair on Note (from_user_key == \"u1\", to_user_key == \"u2\"), forward; "
                    + "filter: from_user_key == \"u1\" and to_user_key == \"u2\"; order: unspecified (scan order)"
            ),
            (
                ["from_user_key": "u1", "to_user_key": "u2"],
                ["sort": ["created_ts": ["ascending": false]], "limit": 10],
                "index scan of pair on Note (from_user_key == \"u1\", to_user_key == \"u2\"), backward; "
                    + "filter: from_user_key == \"u1\" and to_user_key == \"u2\"; sort: created_ts desc from index order; "
                    + "limit 10 pushed into the scan"
            ),
            (
                nil, ["sort": ["-created_ts"], "limit": 5],
                "index scan of created_ts on Note (all entries), backward; no filter; sort: created_ts desc from index order; "
                    + "limit 5 pushed into the scan"
            ),
            (
                ["type": "text"], ["sort": ["created_ts"]],
                "index scan of created_ts on Note (all entries), forward; filter: type == \"text\"; "
                    + "sort: created_ts asc from index order"
            ),
            (
                ["type": "text"], nil,
                "full scan of Note; filter: type == \"text\"; order: unspecified (scan order)"
            ),
            (
                ["id >": "n5"], ["limit": 100],
                "id range scan of Note (ids in (\"n5\", <>)), forward; filter: id > \"n5\"; order: unspecified (scan order); "
                    + "limit 100 pushed into the scan"
            ),
            (
                nil, ["sort": ["-id"], "limit": 2],
                "id range scan of Note (all ids), backward; no filter; sort: id desc from id order; limit 2 pushed into the scan"
            ),
            (
                ["from_user_key in": ["u2", "u1", "u2"], "to_user_key": "u3"], ["limit": 5],
                "index scan of pair on Note (from_user_key in [\"u1\", \"u2\"] (2 seeks), to_user_key == \"u3\"), forward; "
                    + "filter: from_user_key in [\"u2\", \"u1\", \"u2\"] and to_user_key == \"u3\"; order: unspecified (scan order); "
                    + "limit 5 pushed into the scan"
            ),
            (
                ["message": "x"], ["sort": ["type"], "limit": 3],
                "full scan of Note; filter: message == \"x\"; sort: type asc in memory; limit 3 after sorting"
            ),
            (
                ["created_ts >": 5, "created_ts <": 3], nil,
                "no scan: the conditions contradict each other; filter: created_ts < 3 and created_ts > 5; order: unspecified (scan order)"
            )
        ]
        for (params, options, expected) in cases {
            let plan = try notes.explain(params: params, options: options)
            #expect(
                plan.description == expected,
                "params \(String(describing: params)) options \(String(describing: options))")
        }
    }

    @Test("a query of a shape planned before reuses its choice, with its own values")
    func remembersChoicePerShape() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let notes = try await Self.makeNotes(temporary.store)
        for index in 0..<20 {
            _ = try await notes.add(
                object: note("n\(index)", from: "u\(index % 3)", to: "u\(index % 4)", ts: Double(index)))
        }
        let choices = notes.storage.planCache
        #expect(choices.count == 0)
        for from in 0..<3 {
            for to in 0..<4 {
                let params: [String: Value] = ["from_user_key": .string("u\(from)"), "to_user_key": .string("u\(to)")]
                #expect(
                    try notes.explain(params: params).description
                        == "index scan of pair on Note (from_user_key == \"u\(from)\", "
                        + "to_user_key == \"u\(to)\"), forward; filter: from_user_key == \"u\(from)\" and to_user_key == \"u\(to)\"; "
                        + "order: unspecified (scan order)")
                let found = try await notes.query(params: params, options: nil)
                #expect(
                    Set(found.map(\.id)) == Set((0..<20).filter { $0 % 3 == from && $0 % 4 == to }.map { "n\($0)" }))
            }
        }
        #expect(choices.count == 1) // twelve queries, one shape
        // Another kind of value is another shape; so is a limit.
        _ = try notes.explain(params: ["from_user_key": 1, "to_user_key": "u1"])
        _ = try notes.explain(params: ["from_user_key": "u1", "to_user_key": "u1"], options: ["limit": 1])
        #expect(choices.count == 3)
        // Values that turn the remembered index's range into an equality score differently: planned afresh.
        #expect(
            try notes.explain(params: ["created_ts >=": 3, "created_ts <=": 7]).description.hasPrefix(
                "index scan of created_ts on Note (created_ts in [3, 7])"))
        #expect(
            try notes.explain(params: ["created_ts >=": 5, "created_ts <=": 5]).description.hasPrefix(
                "index scan of created_ts on Note (created_ts == 5)"))
        #expect(
            try await notes.query(params: ["created_ts >=": 5, "created_ts <=": 5], options: nil).map(\.id) == ["n5"])
        // Contradictions and ids are decided by each query's values, whatever its shape chose.
        #expect(try notes.explain(params: ["created_ts >": 9, "created_ts <": 1]).description.hasPrefix("no scan"))
    }

    @Test("shapes that hash alike (same name lengths) are still told apart by their fields")
    func shapesThatCollideStayApart() throws {
        let cache = PlanCache()
        let abc = PlanCache.Shape(try Query(params: ["abc": 1], options: nil))
        let xyz = PlanCache.Shape(try Query(params: ["xyz": 2], options: nil))
        #expect(abc.hashValue == xyz.hashValue)
        #expect(abc != xyz)
        cache.remember(.index(name: "abc", score: 4), for: abc, generation: cache.generation)
        #expect(cache.choice(for: abc) == .index(name: "abc", score: 4))
        #expect(cache.choice(for: xyz) == nil)
        cache.remember(.records, for: xyz, generation: cache.generation)
        #expect(cache.choice(for: abc) == .index(name: "abc", score: 4))
        #expect(cache.choice(for: xyz) == .records)
        #expect(cache.count == 2)
    }

    @Test("remembered choices are forgotten when the indexes change")
    func forgetsChoicesWhenIndexesChange() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let plain = try await temporary.store.collection(
            Note.self, idField: "id", indexes: [IndexDefinition("created_ts")])
        for index in 0..<10 {
            _ = try await plain.add(object: note("n\(index)", from: "u\(index % 2)", ts: Double(index)))
        }
        #expect(try plain.explain(params: ["from_user_key": "u1"]).description.hasPrefix("full scan of Note"))
        #expect(plain.storage.planCache.count == 1)
        let indexed = try await temporary.store.collection(
            Note.self, idField: "id",
            indexes: [
                IndexDefinition("created_ts"), IndexDefinition("from_user_key")
            ])
        #expect(
            try indexed.explain(params: ["from_user_key": "u0"]).description.hasPrefix(
                "index scan of from_user_key on Note"))
        #expect(try await indexed.query(params: ["from_user_key": "u0"], options: nil).count == 5)
    }

    @Test("index scans stop at the range's end and at the limit")
    func rangeAndLimit() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let notes = try await Self.makeNotes(temporary.store)
        for index in 0..<100 {
            _ = try await notes.add(
                object: note(
                    String(format: "n%03d", index), from: "u\(index % 4)", to: "u\(index % 5)",
                    ts: Double(index)))
        }
        let range = try await notes.query(params: ["created_ts >=": 10, "created_ts <": 20.5], options: nil)
        #expect(range.map(\.created_ts) == (10...20).map(Double.init))
        let limited = try await notes.query(params: ["created_ts >": 90], options: ["limit": 3, "offset": 2])
        #expect(limited.map(\.created_ts) == [93, 94, 95])
        let newest = try await notes.query(
            params: ["from_user_key": "u1", "to_user_key": "u1"],
            options: ["sort": ["created_ts": ["ascending": false]], "limit": 2])
        #expect(newest.map(\.created_ts) == [81, 61])
        let descendingRange = try await notes.query(params: ["created_ts <=": 5], options: ["sort": ["-created_ts"]])
        #expect(descendingRange.map(\.created_ts) == [5, 4, 3, 2, 1, 0])
        let several = try await notes.query(
            params: ["from_user_key in": ["u1", "u3"], "to_user_key": "u1"],
            options: ["sort": ["created_ts"]])
        #expect(several.map(\.created_ts) == [1, 11, 21, 31, 41, 51, 61, 71, 81, 91])
        let mixedTypes = try await notes.query(params: ["created_ts >=": "a"], options: nil)
        #expect(mixedTypes.isEmpty) // a range never leaves its type class
    }
}
