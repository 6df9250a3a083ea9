import DataStoreCore
import Testing

@Suite("Conditions checked on record bytes")
struct RecordPredicateTests {
    /// The prepared predicate answers exactly as the condition on the decoded field, for random
    /// documents (numbers of both kinds, -0.0, NaN, infinities, multi-byte and combining strings,
    /// bytes, null, arrays, missing fields) and random conditions with every operator.
    @Test(arguments: [UInt64(11), 12, 13])
    func agreesWithDecodedField(seed: UInt64) throws {
        var random = QueryRandom(seed: seed)
        var fastAnswers = 0
        for round in 0..<3_000 {
            let document = random.document(index: round)
            let condition = random.condition()
            let record = try RecordCodec.encode(document)
            let expected = condition.matches(document)
            let answered = try record.withUnsafeBytes { try RecordPredicate(condition).matches(record: $0) }
            #expect(answered == expected, "round \(round): \(condition) on \(document)")
            if expected { fastAnswers += 1 }
        }
        #expect(fastAnswers > 100) // the rounds are not all trivially false
    }

    @Test("string comparisons read the bytes: equal, not equal and ranges, by UTF-8 bytes")
    func strings() throws {
        let record = try RecordCodec.encode(["type": "vidéo", "n": 3, "x": 2.5, "flag": true])
        func holds(_ field: String, _ op: Operator, _ value: Value) throws -> Bool {
            try record.withUnsafeBytes {
                try RecordPredicate(Condition(field: field, op: op, value: value)).matches(record: $0)
            }
        }
        #expect(try holds("type", .equal, "vidéo"))
        #expect(try !holds("type", .equal, "vide\u{301}o")) // another byte sequence
        #expect(try holds("type", .notEqual, "video"))
        #expect(try holds("type", .greater, "vid"))
        #expect(try holds("type", .less, "vie"))
        #expect(try holds("type", .greater, "vidz")) // é is 0xC3 0xA9, after z
        #expect(try !holds("type", .less, 3)) // another type class never matches a range
        #expect(try holds("n", .equal, 3.0))
        #expect(try holds("x", .greaterOrEqual, 2))
        #expect(try holds("flag", .equal, true))
        #expect(try !holds("missing", .notEqual, "anything")) // a missing field matches nothing
    }

    @Test("a damaged string is the general path's error, not an answer")
    func damagedString() throws {
        var record = try RecordCodec.encode(["type": "video"])
        // The string's first byte becomes a lone continuation byte: invalid UTF-8.
        let at = record.firstIndex(of: UInt8(ascii: "v"))!
        record[at] = 0x80
        #expect(throws: CodecError.self) {
            try record.withUnsafeBytes {
                try RecordPredicate(Condition(field: "type", op: .equal, value: "video")).matches(record: $0)
            }
        }
    }
}

@Suite("Several conditions checked in one pass over a record")
struct RecordPredicateAllTests {
    /// `all(_:match:)` answers as the conjunction of the single predicates, for random documents
    /// and one to four random conditions (fields present, absent, repeated, in any order).
    @Test(arguments: [UInt64(21), 22, 23])
    func agreesWithConjunction(seed: UInt64) throws {
        var random = QueryRandom(seed: seed)
        var held = 0
        for round in 0..<2_000 {
            let document = random.document(index: round)
            let conditions = (0..<Int.random(in: 1...4, using: &random)).map { _ in random.condition() }
            let record = try RecordCodec.encode(document)
            let expected = conditions.allSatisfy { $0.matches(document) }
            let answered = try record.withUnsafeBytes {
                try RecordPredicate.all(RecordPredicate.ordered(conditions), match: $0)
            }
            #expect(answered == expected, "round \(round): \(conditions) on \(document)")
            if expected { held += 1 }
        }
        #expect(held > 50)
    }

    @Test("no predicates hold for any record; a record without a field fails its predicate")
    func edges() throws {
        let record = try RecordCodec.encode(["b": 1, "d": "x"])
        func all(_ conditions: [Condition]) throws -> Bool {
            try record.withUnsafeBytes { try RecordPredicate.all(RecordPredicate.ordered(conditions), match: $0) }
        }
        #expect(try all([]))
        #expect(try !all([Condition(field: "a", op: .notEqual, value: 0), Condition(field: "b", op: .equal, value: 1)]))
        #expect(
            try !all([Condition(field: "d", op: .equal, value: "x"), Condition(field: "e", op: .notEqual, value: 0)]))
        #expect(
            try all([
                Condition(field: "d", op: .equal, value: "x"), Condition(field: "b", op: .greaterOrEqual, value: 1)
            ]))
    }

    @Test("names that share their first byte, or are empty, are ordered by their whole bytes")
    func namesAlikeAtTheStart() throws {
        let record = try RecordCodec.encode(["": 0, "t": 1, "to_user_key": "u", "type": "video", "typf": 2])
        func all(_ conditions: [Condition]) throws -> Bool {
            try record.withUnsafeBytes { try RecordPredicate.all(RecordPredicate.ordered(conditions), match: $0) }
        }
        #expect(try all([Condition(field: "type", op: .equal, value: "video")]))
        #expect(try all([Condition(field: "", op: .equal, value: 0), Condition(field: "typf", op: .equal, value: 2)]))
        #expect(
            try all([Condition(field: "t", op: .equal, value: 1), Condition(field: "type", op: .prefix, value: "vi")]))
        #expect(
            try !all([
                Condition(field: "ty", op: .equal, value: 1), Condition(field: "type", op: .equal, value: "video")
            ]))
        #expect(
            try all([Condition(field: "typ", op: .exists, value: false), Condition(field: "typf", op: .equal, value: 2)]
            ))
        #expect(try !all([Condition(field: "to_user_key", op: .equal, value: "v")]))
    }
}
