import DataStoreCore
import Testing

@Suite("Query matching")
struct QueryMatchingTests {
    private func holds(_ op: Operator, _ conditionValue: Value, _ fieldValue: Value?) -> Bool {
        Condition(field: "f", op: op, value: conditionValue).matches(fieldValue: fieldValue)
    }

    @Test func missingFieldMatchesNothing() {
        for op in Operator.allCases {
            let value: Value = op == .in ? [1, .null] : 1
            #expect(!holds(op, value, nil), "\(op)")
            #expect(!Condition(field: "f", op: op, value: value).matches(["g": 1]), "\(op)")
        }
        #expect(!holds(.notEqual, .null, nil))
    }

    @Test func storedNullIsAValue() {
        #expect(holds(.equal, .null, .null))
        #expect(!holds(.equal, .null, 0))
        #expect(holds(.notEqual, .null, 0))
        #expect(!holds(.notEqual, .null, .null))
        #expect(holds(.notEqual, 1, .null))
        #expect(holds(.in, [.null, 1], .null))
        for op in Operator.allCases where op.isRange {
            #expect(!holds(op, 0, .null), "\(op)")
            #expect(!holds(op, false, .null), "\(op)")
            #expect(!holds(op, .null, .null), "range with a null value never matches: \(op)")
        }
    }

    @Test func numbersAcrossIntAndDouble() {
        #expect(holds(.equal, 1, .double(1.0)))
        #expect(holds(.equal, .double(1.0), 1))
        #expect(holds(.equal, .double(-0.0), 0))
        #expect(!holds(.notEqual, 1, .double(1.0)))
        #expect(holds(.less, 2, .double(1.5)))
        #expect(holds(.greater, .double(1.5), 2))
        #expect(holds(.lessOrEqual, .double(1.0), 1))
        #expect(!holds(.less, .double(1.0), 1))
        // Exact, not via Double: 2^53 + 1 is above Double(2^53).
        #expect(holds(.greater, .double(9_007_199_254_740_992), .int(9_007_199_254_740_993)))
        #expect(!holds(.equal, .double(9_007_199_254_740_992), .int(9_007_199_254_740_993)))
        #expect(holds(.in, [.double(3)], 3))
    }

    @Test func stringsByBytes() {
        #expect(holds(.equal, "é", "é"))
        #expect(!holds(.equal, "é", "e\u{301}"), "canonically equivalent but different bytes")
        #expect(holds(.notEqual, "é", "e\u{301}"))
        #expect(holds(.less, "b", "a"))
        #expect(holds(.less, "é", "z"), "U+00E9 is above z (0x7A) by bytes")
        #expect(!holds(.less, "z", "é"))
        #expect(holds(.greaterOrEqual, "", ""))
    }

    @Test func rangesStayWithinTheirTypeClass() {
        // created_ts >= 5 never matches a string, bytes, bool, null, array or object.
        for value: Value in ["10", .bytes([9]), true, .null, ["x"], ["k": 10]] {
            #expect(!holds(.greaterOrEqual, 5, value), "\(value)")
            #expect(!holds(.less, 5, value), "\(value)")
        }
        // ...although the total order puts strings above numbers and null below.
        #expect(Value("10") > Value(5))
        #expect(!holds(.less, "a", 5))
        #expect(holds(.greater, false, true))
        #expect(holds(.lessOrEqual, true, false))
        #expect(!holds(.greater, true, true))
        #expect(holds(.less, .bytes([1]), .bytes([0, 9])))
        #expect(holds(.greater, .bytes([]), .bytes([0])))
        #expect(!holds(.greater, .bytes([0]), "a"))
    }

    @Test func rangeWithUnorderableValueNeverMatches() {
        // Only `Query(conditions:)` can build these; parsing rejects them.
        for op in Operator.allCases where op.isRange {
            #expect(!holds(op, [1], [1]), "\(op)")
            #expect(!holds(op, [1], [0]), "\(op)")
            #expect(!holds(op, ["k": 1], ["k": 1]), "\(op)")
        }
    }

    @Test func notANumber() {
        // NaN follows Value's order: equal to itself, below every other number.
        let nan = Value.double(.nan)
        #expect(holds(.equal, nan, nan))
        #expect(!holds(.notEqual, nan, nan))
        #expect(holds(.notEqual, 0, nan))
        #expect(holds(.less, .double(-.infinity), nan))
        #expect(holds(.less, 0, nan))
        #expect(!holds(.greater, .double(-.infinity), nan))
        #expect(holds(.greaterOrEqual, nan, .double(-.infinity)))
        #expect(holds(.greaterOrEqual, nan, nan))
        #expect(!holds(.less, nan, nan))
        #expect(!holds(.less, nan, .int(Int64.min)))
        #expect(holds(.in, [nan], nan))
    }

    @Test func notEqualMatchesPresentFieldsOfAnyType() {
        #expect(holds(.notEqual, 5, "5"))
        #expect(holds(.notEqual, 5, .null))
        #expect(holds(.notEqual, 5, 6))
        #expect(!holds(.notEqual, 5, 5))
    }

    @Test func inOperator() {
        #expect(holds(.in, ["a", "b"], "b"))
        #expect(!holds(.in, ["a", "b"], "c"))
        #expect(!holds(.in, [], "a"), "an empty in matches nothing")
        #expect(!holds(.in, [], .null))
        #expect(!holds(.in, "a", "a"), "a non-array in value never matches")
        #expect(holds(.in, [[1, 2]], [1, 2]), "an array candidate compares whole arrays")
    }

    @Test func arrayFieldsMatchAnyElement() {
        let tags: Value = ["a", "b", 3]
        #expect(holds(.equal, "a", tags))
        #expect(holds(.equal, .double(3), tags))
        #expect(!holds(.equal, "c", tags))
        #expect(!holds(.notEqual, "a", tags), "!= is the negation of ==")
        #expect(holds(.notEqual, "c", tags))
        #expect(holds(.in, ["z", "b"], tags))
        #expect(!holds(.in, ["z"], tags))
        #expect(holds(.greater, 2, tags))
        #expect(!holds(.greater, 3, tags))
        #expect(holds(.lessOrEqual, "a", tags))
        #expect(holds(.less, "b", tags))
        #expect(!holds(.less, "a", tags))
        // Empty arrays: no element matches, so only != holds.
        #expect(!holds(.equal, 1, []))
        #expect(holds(.notEqual, 1, []))
        #expect(!holds(.less, 1, []))
        // Only one level: an element that is itself an array is a value of the array class.
        #expect(!holds(.equal, 1, [[1]]))
        #expect(holds(.equal, [1], [[1]]) == false, "an array value compares the whole field")
    }

    @Test func arrayConditionValueComparesWholeArrays() {
        #expect(holds(.equal, ["a", "b"], ["a", "b"]))
        #expect(!holds(.equal, ["a"], ["a", "b"]))
        #expect(!holds(.equal, ["a", "b"], ["b", "a"]))
        #expect(holds(.equal, [1], [.double(1)]))
        #expect(!holds(.equal, ["a"], "a"))
        #expect(holds(.notEqual, ["a"], ["a", "b"]))
        #expect(!holds(.notEqual, ["a", "b"], ["a", "b"]))
        #expect(holds(.equal, [], []))
    }

    @Test func objectsCompareWhole() {
        #expect(holds(.equal, ["x": 1], ["x": .double(1)]))
        #expect(!holds(.equal, ["x": 1], ["x": 1, "y": 2]))
        #expect(holds(.equal, ["x": 1], [["x": 1], 5]), "an object element of an array field")
    }

    @Test func queryIsTheConjunction() throws {
        let query = try Query(
            params: ["from_user_key": "1234567890", "to_user_key": "0987654321", "created_ts >=": 1437108600],
            options: nil)
        let hit: Document = ["from_user_key": "1234567890", "to_user_key": "0987654321", "created_ts": 1437118258]
        #expect(query.matches(hit))
        var miss = hit
        miss["created_ts"] = 1437108599
        #expect(!query.matches(miss))
        miss = hit
        miss["to_user_key"] = nil
        #expect(!query.matches(miss))
        miss = hit
        miss["created_ts"] = "1437118258"
        #expect(!query.matches(miss), "a string is never >= a number")
        #expect(Query().matches([:]))
    }

    @Test func severalConditionsOnOneField() throws {
        let query = try Query(params: ["ts >=": 1, "ts <": 5], options: nil)
        #expect(query.matches(["ts": 1]))
        #expect(query.matches(["ts": .double(4.5)]))
        #expect(!query.matches(["ts": 5]))
        #expect(!query.matches(["ts": 0]))
        // Array fields: each condition may be met by a different element.
        let split = try Query(params: ["a >=": 5, "a <": 3], options: nil)
        #expect(split.matches(["a": [1, 10]]))
        #expect(!split.matches(["a": 4]))
    }
}
