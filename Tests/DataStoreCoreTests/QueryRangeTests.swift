import DataStoreCore
import Testing

@Suite("Query ranges for the planner")
struct QueryRangeTests {
    private func range(_ params: [String: Value], on field: String = "ts") throws -> ValueRange? {
        try Query(params: params, options: nil).range(on: field)
    }

    @Test func singleConditions() throws {
        #expect(try range(["ts >=": 5])?.description == "[5, inf]")
        #expect(try range(["ts >": 5])?.description == "(5, inf]")
        #expect(try range(["ts <": 5])?.description == "[nan, 5)")
        #expect(try range(["ts <=": 5])?.description == "[nan, 5]")
        #expect(try range(["ts ==": 5])?.description == "[5, 5]")
        #expect(try range(["ts >=": "m"])?.description == #"["m", <>)"#)
        #expect(try range(["ts <": "m"])?.description == #"["", "m")"#)
        #expect(try range(["ts >": .bytes([1])])?.description == "(<01>, [])")
        #expect(try range(["ts <": true])?.description == "[false, true)")
        #expect(try range(["ts ==": .null])?.equals == .null)
    }

    @Test func notARange() throws {
        #expect(try range(["ts !=": 5]) == nil)
        #expect(try range(["ts in": [1, 2]]) == nil)
        #expect(try range(["ts": [1, 2]]) == nil, "== with an array compares whole arrays")
        #expect(try range(["other >": 1]) == nil)
        #expect(try range([:]) == nil)
    }

    @Test func intersections() throws {
        #expect(try range(["ts >=": 1, "ts <": 5])?.description == "[1, 5)")
        #expect(try range(["ts >": 1, "ts >=": 3, "ts <=": 4, "ts <": 9])?.description == "[3, 4]")
        #expect(try range(["ts >": 1, "ts >=": 1])?.description == "(1, inf]", "exclusive wins at a tie")
        #expect(try range(["ts >=": 1, "ts <=": 1])?.equals == 1)
        #expect(try range(["ts >=": 1, "ts !=": 3])?.description == "[1, inf]", "!= does not narrow")
    }

    @Test func equalityWins() throws {
        let r = try #require(try range(["ts": 3, "ts >=": 1, "ts <": 5]))
        #expect(r.equals == 3)
        #expect(r.description == "[3, 3]")
        #expect(try range(["ts": 3, "ts <=": .double(3.0)])?.equals == 3)
    }

    @Test func contradictions() throws {
        #expect(try range(["ts": 1, "ts =": 2])?.isEmpty == true)
        #expect(try range(["ts >": 5, "ts <": 3])?.isEmpty == true)
        #expect(try range(["ts >": 5, "ts <=": 5])?.isEmpty == true)
        #expect(try range(["ts": 5, "ts <": 5])?.isEmpty == true)
        #expect(try range(["ts >=": 5, "ts <": "x"])?.isEmpty == true, "different type classes")
        #expect(try range(["ts": "5", "ts >": 1])?.isEmpty == true)
        #expect(try range(["ts <": .double(.nan)])?.isEmpty == true, "nothing is below NaN")
        #expect(ValueRange.empty.description == "empty")
        #expect(!ValueRange.empty.contains(.null))
        #expect(ValueRange.empty.equals == nil)
        #expect(ValueRange.empty.lower == nil)
    }

    @Test func unorderableRangeConditionIsEmpty() {
        // Only `Query(conditions:)` can build these, and they never match.
        #expect(Condition(field: "f", op: .less, value: .null).range == .empty)
        #expect(Condition(field: "f", op: .greater, value: [1]).range == .empty)
    }

    @Test func containsAndIntersection() {
        let all = ValueRange.all
        #expect(all.contains(.null) && all.contains(["k": 1]))
        #expect(all.description == "(*, *)")
        let numbers = ValueRange(
            lower: .init(.double(.nan), isInclusive: true), upper: .init(.double(.infinity), isInclusive: true))
        #expect(numbers.contains(.int(.max)) && numbers.contains(.double(.nan)) && !numbers.contains(""))
        #expect(!numbers.contains(true))
        #expect(ValueRange.equal(to: 1).contains(.double(1.0)))
        #expect(numbers.intersection(.equal(to: "a")).isEmpty)
        #expect(numbers.intersection(.all) == numbers)
    }

    /// For random scalar values, whenever every `==`/range condition on a field matches, the value
    /// lies in the computed range; and for these conditions the range is exact.
    @Test func rangeIsNeverNarrowerThanTheTruth() {
        var random = QueryRandom(seed: 0x5EED_0001)
        var checked = 0
        for _ in 0..<1500 {
            var conditions: [Condition] = []
            for _ in 0..<Int.random(in: 1...3, using: &random) {
                let op = random.pick([Operator.equal, .less, .lessOrEqual, .greater, .greaterOrEqual])
                var value = random.scalar()
                if op.isRange && value.isNull { value = 0 }
                conditions.append(Condition(field: "f", op: op, value: value))
            }
            let query = Query(conditions: conditions)
            guard let range = query.range(on: "f") else {
                Issue.record("no range for \(query)")
                continue
            }
            for _ in 0..<20 {
                let v = random.scalar()
                let matches = query.matches(["f": v])
                if matches { checked += 1 }
                #expect(!matches || range.contains(v), "\(v) matches \(query) but lies outside \(range)")
                #expect(matches || !range.contains(v), "\(v) lies in \(range) but does not match \(query)")
            }
        }
        #expect(checked > 500)
    }

    /// With `!=`, `in` and array-valued conditions mixed in, and array (multi-value) fields: a
    /// scalar that matches lies in `range(on:)`, and for an array field each matching condition's
    /// own `range` holds some element.
    @Test func rangeIsConservativeForEveryConditionKind() {
        var random = QueryRandom(seed: 0x5EED_0002)
        for _ in 0..<1500 {
            let conditions = (0..<Int.random(in: 1...4, using: &random)).map { _ in
                var condition = random.condition()
                condition.field = "f"
                return condition
            }
            let query = Query(conditions: conditions)
            let range = query.range(on: "f") ?? .all
            for _ in 0..<10 {
                let v = random.fieldValue()
                if case .array(let elements) = v {
                    // Not `exists`: an empty array is present but has no element (the planner does
                    // not use `exists` on a multi-value index).
                    for condition in query.conditions where condition.matches(fieldValue: v) && condition.op != .exists
                    {
                        guard let own = condition.range else { continue }
                        #expect(elements.contains { own.contains($0) }, "\(v) matches \(condition) outside \(own)")
                    }
                } else if query.matches(["f": v]) {
                    #expect(range.contains(v), "\(v) matches \(query) but lies outside \(range)")
                }
            }
        }
    }
}
