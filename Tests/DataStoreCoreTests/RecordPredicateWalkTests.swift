import Testing

@testable import DataStoreCore

/// The one-pass walk of ``RecordPredicate/all(_:match:)-([RecordPredicate],_)``: it skips every
/// value it passes by its tag and length, so each kind of value, each length width and each way a
/// field can be missing is checked against the decoded document.
@Suite("Record predicates walking past every kind of value")
struct RecordPredicateWalkTests {
    /// One field of every value type, and long ones whose lengths take two and three varint bytes.
    static let everyKind: Document = [
        "a_null": .null, "b_false": false, "c_true": true, "d_int8": -5, "e_int16": 300, "f_int32": 70_000,
        "g_int64": .int(1 << 40), "h_double": 2.5, "i_string": "hé", "j_bytes": .bytes([0, 255]),
        "k_array": [1, "x", [true]], "l_object": ["x": 1, "y": ["z": "deep"]],
        "m_long_string": .string(String(repeating: "s", count: 200)),
        "n_long_bytes": .bytes([UInt8](repeating: 7, count: 20_000)),
        "o_long_array": .array((0..<3_000).map { .int(Int64($0)) }),
        String(repeating: "p", count: 130): "a name longer than one varint byte", "z_type": "video"
    ]

    /// Whether `conditions` hold for `document`, asked of its record bytes through `all`.
    private func walked(_ conditions: [Condition], on document: Document) throws -> Bool {
        let record = try RecordCodec.encode(document)
        return try record.withUnsafeBytes { try RecordPredicate.all(RecordPredicate.ordered(conditions), match: $0) }
    }

    @Test("a filter on the last field is answered past every kind and width of value")
    func filterAfterEveryKind() throws {
        let document = Self.everyKind
        for value: Value in ["video", "videos", "vide", "", 1, .null] {
            for op in [Operator.equal, .notEqual, .less, .greaterOrEqual, .prefix] {
                let condition = Condition(field: "z_type", op: op, value: value)
                #expect(try walked([condition], on: document) == condition.matches(document), "\(condition)")
            }
        }
    }

    @Test("every field, of every value type, is found and compared, alone and with the last one")
    func everyFieldEveryType() throws {
        let document = Self.everyKind
        let last = Condition(field: "z_type", op: .equal, value: "video")
        for (name, value) in document.fields {
            for op in [Operator.equal, .notEqual, .greater, .lessOrEqual, .exists] {
                let condition = Condition(field: name, op: op, value: op == .exists ? true : value)
                #expect(try walked([condition], on: document) == condition.matches(document), "\(condition)")
                #expect(try walked([condition, last], on: document) == condition.matches(document), "\(condition)")
            }
            let other = Condition(field: name, op: .equal, value: "not it")
            #expect(try walked([other], on: document) == other.matches(document), "\(other)")
        }
    }

    @Test("fields absent before the first, between two and after the last field")
    func absentFields() throws {
        let document: Document = ["b": 1, "d": "x", "f": 2.5]
        for name in ["a", "c", "e", "g", "", "bb", "d\u{0}"] {
            for condition in [
                Condition(field: name, op: .equal, value: 1), Condition(field: name, op: .notEqual, value: 1),
                Condition(field: name, op: .exists, value: false), Condition(field: name, op: .exists, value: true)
            ] {
                #expect(try walked([condition], on: document) == condition.matches(document), "\(condition)")
                let both = [condition, Condition(field: "f", op: .equal, value: 2.5)]
                #expect(try walked(both, on: document) == both.allSatisfy { $0.matches(document) }, "\(both)")
            }
        }
    }

    @Test("a nested path beside top-level filters, with objects and arrays skipped whole")
    func nestedValues() throws {
        let document = Self.everyKind
        let cases: [[Condition]] = [
            [Condition(field: "l_object.y.z", op: .equal, value: "deep")],
            [
                Condition(field: "l_object.y.z", op: .equal, value: "deep"),
                Condition(field: "z_type", op: .equal, value: "video")
            ],
            [Condition(field: "l_object.x", op: .greater, value: 0), Condition(field: "d_int8", op: .less, value: 0)],
            [
                Condition(field: "l_object.x", op: .equal, value: 2),
                Condition(field: "z_type", op: .equal, value: "video")
            ],
            [Condition(field: "l_object", op: .equal, value: ["x": 1, "y": ["z": "deep"]])],
            [Condition(field: "k_array", op: .equal, value: "x"), Condition(field: "z_type", op: .prefix, value: "vid")]
        ]
        for conditions in cases {
            #expect(
                try walked(conditions, on: document) == conditions.allSatisfy { $0.matches(document) }, "\(conditions)")
        }
    }

    @Test("short strings of every length, ASCII or with a non-ASCII byte anywhere, compare by their bytes")
    func shortStrings() throws {
        for length in 0...10 {
            for position in -1..<length {
                // Position -1 keeps the string ASCII, the case one word compares.
                var text = Array(repeating: Character("a"), count: length)
                if position >= 0 { text[position] = "é" }
                let value = String(text)
                for document: Document in [["t": .string(value)], ["aaaaaaaaaa": 1, "t": .string(value)]] {
                    for probe in [value, value + "a", value + "\u{0}", String(value.dropLast()), "a", "b", "\u{0}"] {
                        for op in [Operator.equal, .notEqual] {
                            let condition = Condition(field: "t", op: op, value: .string(probe))
                            #expect(
                                try walked([condition], on: document) == condition.matches(document), "\(condition)")
                        }
                    }
                }
            }
        }
    }

    @Test("numbers of every width compare with integer and double values as documents do")
    func numbersAcrossKinds() throws {
        let numbers: [Value] = [
            0, -1, 127, -128, 300, -40_000, 70_000, .int(1 << 40), .int(Int64.max), .int(Int64.min),
            .int(1 << 53), .int((1 << 53) + 1), 0.0, -0.0, 2.5, -2.5, .double(Double(1 << 53)), .double(.nan),
            .double(.infinity), .double(-.infinity), .double(9_223_372_036_854_775_808.0), 127.0, 300.5
        ]
        for stored in numbers {
            let document: Document = ["a": "before", "n": stored, "z": "after"]
            for target in numbers {
                for op in [Operator.equal, .notEqual, .less, .lessOrEqual, .greater, .greaterOrEqual] {
                    let condition = Condition(field: "n", op: op, value: target)
                    #expect(
                        try walked([condition], on: document) == condition.matches(document),
                        "\(stored) \(condition)")
                }
            }
        }
    }

    @Test(
        "on well-formed records the one-pass walk answers by itself, and its quick comparisons answer ASCII and numbers"
    )
    func walkAnswersWellFormedRecords() throws {
        let documents: [Document] = [
            Self.everyKind, ["a": "before", "n": 2.5, "t": "video", "z": "after"],
            ["body": "hello", "created_ts": 1_437_108_600, "from_user_key": "u1", "to_user_key": "u2", "type": "text"]
        ]
        for document in documents {
            let record = try RecordCodec.encode(document)
            for (name, value) in document.fields {
                for op in [Operator.equal, .notEqual, .less, .greaterOrEqual] {
                    let condition = Condition(field: name, op: op, value: value)
                    let predicates = RecordPredicate.ordered([condition])
                    let walked = try record.withUnsafeBytes { bytes in
                        try predicates.withUnsafeBufferPointer { try RecordPredicate.walk($0.baseAddress!, 1, bytes) }
                    }
                    #expect(walked == condition.matches(document), "\(condition)")
                    guard
                        let offset = record.withUnsafeBytes({ bytes in
                            name.utf8.withContiguousStorageIfAvailable { name in
                                RecordScan.field(UnsafeRawBufferPointer(name), in: bytes)
                            }
                        }), case .found(let at) = offset
                    else { continue }
                    let quick = record.withUnsafeBytes { bytes in
                        predicates.withUnsafeBufferPointer { predicate in
                            RecordPredicate.shortTextAnswer(
                                predicate.baseAddress!, bytes.baseAddress!, bytes.count, at: at)
                                ?? RecordPredicate.numberAnswer(
                                    predicate.baseAddress!, bytes.baseAddress!, bytes.count, at: at)
                        }
                    }
                    let answersQuickly: Bool
                    switch (op, value) {
                    case (.equal, .string(let text)), (.notEqual, .string(let text)):
                        answersQuickly = (1...8).contains(text.utf8.count) && text.utf8.allSatisfy { $0 < 0x80 }
                    case (_, .int), (_, .double): answersQuickly = true
                    default: answersQuickly = false
                    }
                    #expect((quick != nil) == answersQuickly, "\(condition)")
                    if let quick { #expect(quick == condition.matches(document), "\(condition)") }
                }
            }
        }
    }

    @Test("invalid UTF-8 anywhere in a short string is the decoder's error, never an answer")
    func damagedShortStrings() throws {
        for length in 1...9 {
            for position in 0..<length {
                let text = String(repeating: "q", count: length)
                var record = try RecordCodec.encode(["t": .string(text)])
                record[record.count - length + position] = 0xFF
                let condition = Condition(field: "t", op: .equal, value: .string(text))
                #expect(throws: CodecError.self, "length \(length), position \(position)") {
                    try record.withUnsafeBytes {
                        try RecordPredicate.all(RecordPredicate.ordered([condition]), match: $0)
                    }
                }
            }
        }
    }

    @Test("a record cut anywhere never crashes the walk; where one predicate answers, all agrees")
    func truncatedRecords() throws {
        let record = try RecordCodec.encode(Self.everyKind)
        let conditions = [
            Condition(field: "f_int32", op: .greater, value: 0), Condition(field: "h_double", op: .equal, value: 2.5),
            Condition(field: "i_string", op: .equal, value: "hé"),
            Condition(field: "z_type", op: .equal, value: "video")
        ]
        let predicates = RecordPredicate.ordered(conditions)
        var step = 1
        var cut = 0
        while cut < record.count {
            let prefix = Array(record[..<cut])
            let together = prefix.withUnsafeBytes { try? RecordPredicate.all(predicates, match: $0) }
            let separately = prefix.withUnsafeBytes { bytes in
                try? predicates.allSatisfy { try $0.matches(record: bytes) }
            }
            // A cut the decoder rejects is never answered by the walk, and where both answer they agree.
            #expect((together == nil) == (separately == nil), "cut at \(cut)")
            if let together, let separately { #expect(together == separately, "cut at \(cut)") }
            // Every byte near the fields' edges, then strides through the long values.
            cut += step
            step = cut < 400 || cut > record.count - 400 ? 1 : 97
        }
    }
}
