import DataStoreCore
import Testing

@Suite("Value order and equality")
struct ValueOrderTests {
    @Test("type classes sort null < false < true < numbers < strings < bytes < arrays < objects")
    func typeClasses() {
        let ascending: [Value] = [
            nil, false, true, .double(-.infinity), 0, 1.5, "", "a", .bytes([]), .bytes([0]), [], [nil], [:], ["a": 1]
        ]
        for (i, a) in ascending.enumerated() {
            for (j, b) in ascending.enumerated() {
                #expect((a < b) == (i < j), "\(a) vs \(b)")
                #expect((a == b) == (i == j), "\(a) vs \(b)")
            }
        }
    }

    @Test("ints and doubles compare by exact numeric value")
    func mixedNumbers() {
        #expect(Value.int(1) == .double(1.0))
        #expect(Value.int(0) == .double(-0.0))
        #expect(Value.double(0.0) == .double(-0.0))
        #expect(Value.int(1) < .double(1.5))
        #expect(Value.double(0.5) < .int(1))
        #expect(Value.int(-1) > .double(-1.5))
        // Beyond 2^53, Double(i) would round: the comparison must not.
        let twoTo53: Int64 = 1 << 53
        #expect(Value.int(twoTo53 + 1) > .double(Double(twoTo53)))
        #expect(Value.int(twoTo53 + 1) != .double(Double(twoTo53 + 1))) // Double(2^53+1) rounds to 2^53
        #expect(Value.int(.max) < .double(9_223_372_036_854_775_808.0))
        #expect(Value.int(.min) == .double(-9_223_372_036_854_775_808.0))
        #expect(Value.int(.min) > .double(-.infinity))
        #expect(Value.int(.max) < .double(.infinity))
        #expect(Value.int(.max - 1) < .int(.max))
    }

    @Test("NaN equals NaN and sorts below every other number")
    func notANumber() {
        let nan = Value.double(.nan)
        #expect(nan == .double(-.nan))
        #expect(nan == .double(Double(bitPattern: 0x7FF0_0000_0000_0001)))
        #expect(nan < .double(-.infinity))
        #expect(nan < .int(.min))
        #expect(nan > true)
        #expect(nan < "")
        #expect(Set<Value>([nan, .double(-.nan)]).count == 1)
    }

    @Test("strings compare and are equal by UTF-8 bytes, not canonical equivalence")
    func strings() {
        let composed: Value = "\u{E9}", decomposed: Value = "e\u{301}"
        #expect(composed != decomposed) // Swift's String == would say equal
        #expect(decomposed < composed) // 0x65 < 0xC3
        #expect(Value.string("\u{FFFF}") < .string("😀")) // scalar order, unlike UTF-16 order
        #expect(Value.string("a") < .string("a\0"))
        #expect(Set<Value>([composed, decomposed]).count == 2)
    }

    @Test("arrays are lexicographic, objects compare sorted (name, value) pairs")
    func containers() {
        #expect(Value.array([1]) < [1, 2])
        #expect(Value.array([1, 2]) < [2])
        #expect(Value.array([1]) == [1.0])
        #expect(Value.object(["a": 2]) > ["a": 1, "b": 1])
        #expect(Value.object(["a": 1]) < ["a": 1, "b": 1])
        #expect(Value.object(["b": 0]) > ["a": 9])
        #expect(Value.object(["x": 1]) == ["x": 1.0])
    }

    @Test("hashing is consistent with == over random values", arguments: [UInt64(1), 2, 3])
    func hashConsistency(seed: UInt64) {
        var generator = ValueGenerator(seed: seed)
        var values: [Value] = []
        for _ in 0..<400 { values.append(generator.value()) }
        // Add numerically equal twins in the other case.
        for value in values.prefix(200) {
            if case .int(let i) = value, Double(exactly: i) != nil { values.append(.double(Double(i))) }
            if case .double(let d) = value, let i = Int64(exactly: d) { values.append(.int(i)) }
        }
        for a in values {
            for b in values where a == b {
                #expect(a.hashValue == b.hashValue, "\(a) == \(b) but hashes differ")
            }
        }
    }

    @Test("the order is a total order over random values", arguments: [UInt64(7), 8])
    func totalOrder(seed: UInt64) {
        var generator = ValueGenerator(seed: seed)
        let values = (0..<120).map { _ in generator.value() }
        for a in values {
            #expect(Value.compare(a, a) == 0)
            for b in values {
                let ab = Value.compare(a, b)
                #expect(ab == -Value.compare(b, a))
                for c in values.prefix(30) where ab <= 0 && Value.compare(b, c) <= 0 {
                    #expect(Value.compare(a, c) <= 0, "\(a) <= \(b) <= \(c)")
                }
            }
        }
    }

    @Test("accessors, typeName and description")
    func accessors() {
        #expect(Value.int(3).intValue == 3)
        #expect(Value.double(3).intValue == 3)
        #expect(Value.double(3.5).intValue == nil)
        #expect(Value.int(3).doubleValue == 3)
        #expect(Value.string("x").stringValue == "x")
        #expect(Value.null.isNull)
        #expect(Value.bool(true).boolValue == true)
        #expect(Value.bytes([1]).bytesValue == [1])
        #expect(Value.array([1]).arrayValue == [1])
        #expect(Value.object(["a": 1]).objectValue == ["a": 1])
        #expect(
            [Value.null, true, 1, 1.5, "s", .bytes([]), [], [:]].map(\.typeName)
                == ["null", "bool", "int", "double", "string", "bytes", "array", "object"])
        let value: Value = ["b": [1, 2.5, nil, "q\"\n"], "a": .bytes([0, 0xAB])]
        #expect(value.description == #"{"a": <00ab>, "b": [1, 2.5, null, "q\"\n"]}"#)
        #expect(Value.array([[[1]]]).nestingDepth == 3)
    }

    @Test("query dictionaries are written with literals")
    func literals() {
        let query: [String: Value] = [
            "from_user_key": "123", "created_ts >=": 1437108600, "ratio": 0.5, "on": true, "gone": nil
        ]
        #expect(query["created_ts >="] == .int(1_437_108_600))
        #expect(query["from_user_key"] == .string("123"))
        #expect(query["gone"] == .null)
    }
}
