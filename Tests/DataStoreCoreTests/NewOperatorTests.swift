// `^=` (prefix), `exists` and `!in`: parsing, typed errors, matching, and the ranges the planner uses.
@testable import DataStoreCore
import Testing

@Suite("Prefix, exists and not-in")
struct NewOperatorTests {
    @Test("the operators parse, and a wrong value type is a typed error naming the key")
    func parsing() throws {
        let query = try Query(params: ["name ^=": "Al", "rating exists": false, "status !in": ["a", "b"]], options: nil)
        #expect(query.conditions.map(\.op) == [.prefix, .exists, .notIn])
        for (key, value): (String, Value) in [
            ("name ^=", 1), ("rating exists", "yes"), ("status !in", "a"), ("x exists", .null)
        ] {
            let error = #expect(throws: DataStoreError.self) { try Query(params: [key: value], options: nil) }
            #expect(error?.code == .invalidQuery)
            #expect(error?.message.contains(key) == true, "\(String(describing: error))")
        }
        // Word operators are field names too.
        #expect(try Query(params: ["exists": 1], options: nil).conditions.first?.field == "exists")
        #expect(try Query(params: ["exists exists": true], options: nil).conditions.first?.op == .exists)
        let unknown = #expect(throws: DataStoreError.self) { try Query(params: ["a like": "x"], options: nil) }
        #expect(unknown?.message.contains("!in, ^= and exists") == true)
    }

    @Test("matching: exists sees presence, null included; !in needs the field; ^= compares UTF-8 bytes")
    func matching() {
        let present = Condition(field: "r", op: .exists, value: true)
        let absent = Condition(field: "r", op: .exists, value: false)
        #expect(present.matches(fieldValue: .null) && !present.matches(fieldValue: nil))
        #expect(absent.matches(fieldValue: nil) && !absent.matches(fieldValue: .int(0)))
        let notIn = Condition(field: "s", op: .notIn, value: ["a", 1])
        #expect(
            notIn.matches(fieldValue: "b") && !notIn.matches(fieldValue: .double(1)) && !notIn.matches(fieldValue: nil))
        #expect(!notIn.matches(fieldValue: ["b", "a"]) && notIn.matches(fieldValue: ["b", "c"]))
        let prefix = Condition(field: "n", op: .prefix, value: "Al")
        #expect(
            prefix.matches(fieldValue: "Alice") && prefix.matches(fieldValue: "Al") && !prefix.matches(fieldValue: "al")
        )
        #expect(prefix.matches(fieldValue: ["Bob", "Alf"]) && !prefix.matches(fieldValue: .bytes(Array("Al".utf8))))
        // Canonically equivalent but different bytes: no match, as the index orders by bytes.
        #expect(!Condition(field: "n", op: .prefix, value: "e\u{301}").matches(fieldValue: "\u{E9}t\u{E9}"))
    }

    @Test("ranges: ^= is [prefix, prefix with its last scalar raised); exists true is every value")
    func ranges() {
        let al = Condition(field: "n", op: .prefix, value: "Al").range
        #expect(al?.contains(.string("Al")) == true && al?.contains(.string("Alzzzz")) == true)
        #expect(al?.contains(.string("Am")) == false && al?.contains(.string("Ak\u{10FFFF}")) == false)
        let top = Condition(field: "n", op: .prefix, value: "a\u{10FFFF}").range
        #expect(top?.contains(.string("a\u{10FFFF}\u{10FFFF}")) == true && top?.contains(.string("b")) == false)
        let beforeSurrogates = Condition(field: "n", op: .prefix, value: "\u{D7FF}").range
        #expect(
            beforeSurrogates?.contains(.string("\u{D7FF}x")) == true
                && beforeSurrogates?.contains(.string("\u{E000}")) == false)
        let empty = Condition(field: "n", op: .prefix, value: "").range
        #expect(empty?.contains(.string("")) == true && empty?.contains(.int(1)) == false)
        #expect(Condition(field: "r", op: .exists, value: true).range?.contains(.null) == true)
        #expect(Condition(field: "r", op: .exists, value: false).range == nil)
        #expect(Condition(field: "r", op: .notIn, value: [1]).range == nil)
    }

    @Test("record predicates answer as matches(fieldValue:) does, absent fields included")
    func recordPredicates() throws {
        let record = try RecordCodec.encode(["a": "Alice", "m": .null, "z": ["x", "y"]])
        let conditions: [Condition] = [
            .init(field: "a", op: .prefix, value: "Al"), .init(field: "a", op: .prefix, value: "B"),
            .init(field: "b", op: .exists, value: false), .init(field: "b", op: .exists, value: true),
            .init(field: "m", op: .exists, value: true), .init(field: "zz", op: .exists, value: false),
            .init(field: "a", op: .notIn, value: ["Bob"]), .init(field: "z", op: .notIn, value: ["x"]),
            .init(field: "q", op: .notIn, value: ["x"])
        ]
        let document = try RecordCodec.decode(record)
        try record.withUnsafeBytes { (bytes) throws -> Void in
            for condition in conditions {
                #expect(
                    try RecordPredicate(condition).matches(record: bytes) == condition.matches(document), "\(condition)"
                )
            }
            // Together, in one pass over the record's fields: absent fields before, between and after.
            let together = RecordPredicate.ordered([conditions[0], conditions[2], conditions[4], conditions[5]])
            #expect(try RecordPredicate.all(together, match: bytes))
            #expect(try !RecordPredicate.all(RecordPredicate.ordered([conditions[0], conditions[3]]), match: bytes))
        }
    }
}
