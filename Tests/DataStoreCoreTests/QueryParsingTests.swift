import DataStoreCore
import Testing

@Suite("Query parameter parsing")
struct QueryParsingTests {
    @Test func seedExampleTwoEqualities() throws {
        let query = try Query(params: ["from_user_key": "1234567890", "to_user_key": "0987654321"], options: nil)
        #expect(
            query.conditions == [
                Condition(field: "from_user_key", op: .equal, value: "1234567890"),
                Condition(field: "to_user_key", op: .equal, value: "0987654321")
            ])
        #expect(query.description == #"from_user_key == "1234567890" and to_user_key == "0987654321""#)
    }

    @Test func seedExampleRange() throws {
        let query = try Query(params: ["created_ts >=": 1437108600], options: [:])
        #expect(query.conditions == [Condition(field: "created_ts", op: .greaterOrEqual, value: 1437108600)])
        #expect(query.description == "created_ts >= 1437108600")
    }

    @Test func seedExampleNumericEquality() throws {
        let query = try Query(params: ["created_ts": 1437118258], options: nil)
        #expect(query.conditions == [Condition(field: "created_ts", op: .equal, value: 1437118258)])
        #expect(query.matches(["created_ts": .double(1437118258)]))
    }

    @Test(
        arguments: [
            ("f", Operator.equal), ("f =", .equal), ("f ==", .equal), ("f !=", .notEqual), ("f <", .less),
            ("f <=", .lessOrEqual), ("f >", .greater), ("f >=", .greaterOrEqual), ("f    >=", .greaterOrEqual),
            ("f\t<", .less)
        ] as [(String, Operator)])
    func everyOperator(key: String, op: Operator) throws {
        let query = try Query(params: [key: 5], options: nil)
        #expect(query.conditions == [Condition(field: "f", op: op, value: 5)])
    }

    @Test func inOperator() throws {
        let query = try Query(params: ["tag in": ["a", "b"]], options: nil)
        #expect(query.conditions == [Condition(field: "tag", op: .in, value: ["a", "b"])])
        #expect(query.description == #"tag in ["a", "b"]"#)
    }

    @Test func fieldsAreLiteral() throws {
        let query = try Query(params: ["a.b": 1, "in": 2, "x-y <": 3], options: nil)
        #expect(query.conditionFields == ["a.b", "in", "x-y"])
        #expect(query.conditions(on: "in") == [Condition(field: "in", op: .equal, value: 2)])
    }

    @Test func severalConditionsOnOneField() throws {
        let query = try Query(params: ["ts >=": 1, "ts <": 5, "ts !=": 3, "name": "x"], options: nil)
        #expect(query.description == #"name == "x" and ts != 3 and ts < 5 and ts >= 1"#)
        #expect(query.conditions(on: "ts").map(\.op) == [.notEqual, .less, .greaterOrEqual])
        #expect(query.conditions(on: "missing").isEmpty)
    }

    @Test func equalitySpellingsCollapse() throws {
        let query = try Query(params: ["a": 1, "a =": 1, "a ==": 1], options: nil)
        #expect(query.conditions == [Condition(field: "a", op: .equal, value: 1)])
    }

    @Test func conditionOrderIsDeterministic() throws {
        // Dictionary order varies; the parsed order must not. Fields by UTF-8 bytes ("B" < "a" < "é").
        let params: [String: Value] = ["é": 1, "a <": 2, "B": 3, "a ==": 4, "a in": [1], "a": .double(4)]
        let expected = try Query(params: params, options: nil).description
        #expect(expected == #"B == 3 and a == 4 and a == 4.0 and a < 2 and a in [1] and é == 1"#)
        for _ in 0..<20 {
            let shuffled = Dictionary(uniqueKeysWithValues: params.shuffled().map { ($0.key, $0.value) })
            #expect(try Query(params: shuffled, options: nil).description == expected)
        }
    }

    @Test func memberwiseInitSortsConditions() {
        let query = Query(conditions: [
            Condition(field: "b", op: .less, value: 1), Condition(field: "a", op: .in, value: [1]),
            Condition(field: "a", op: .equal, value: 2)
        ])
        #expect(query.description == "a == 2 and a in [1] and b < 1")
    }

    @Test func emptyAndNilParams() throws {
        #expect(try Query(params: nil, options: nil).isEmpty)
        #expect(try Query(params: [:], options: [:]).isEmpty)
        #expect(try Query(params: nil, options: nil).description == "all")
        #expect(!Query(conditions: [], limit: 0).isEmpty)
        #expect(!Query(conditions: [Condition(field: "a", op: .equal, value: 1)]).isEmpty)
    }

    @Test func nullAndCompoundValuesWithEquality() throws {
        let query = try Query(params: ["a": nil, "b !=": ["x": 1], "c": [1, 2]], options: nil)
        #expect(query.description == #"a == null and b != {"x": 1} and c == [1, 2]"#)
    }

    @Test(arguments: [
        (
            "created_ts =>",
            #"query key "created_ts =>" has an unknown operator "=>"; the operators are =, ==, !=, <, <=, >, >=, in, !in, ^= and exists"#
        ),
        (
            "a <>",
            #"query key "a <>" has an unknown operator "<>"; the operators are =, ==, !=, <, <=, >, >=, in, !in, ^= and exists"#
        ),
        (
            "a like",
            #"query key "a like" has an unknown operator "like"; the operators are =, ==, !=, <, <=, >, >=, in, !in, ^= and exists"#
        ),
        (
            "a IN",
            #"query key "a IN" has an unknown operator "IN"; the operators are =, ==, !=, <, <=, >, >=, in, !in, ^= and exists"#
        ),
        (
            "a ===",
            #"query key "a ===" has an unknown operator "==="; the operators are =, ==, !=, <, <=, >, >=, in, !in, ^= and exists"#
        ),
        (" >=", #"query key " >=" has no field name before the operator ">=""#),
        (">=", #"query key ">=" has no field name before the operator ">=""#),
        ("", #"query key "" has no field name"#),
        ("   ", #"query key "   " has no field name"#),
        (" a", #"query key " a" starts with whitespace"#),
        ("a ", #"query key "a " ends with whitespace; write "field" or "field OP""#),
        (
            "a b >=",
            #"query key "a b >=" has 3 words; write "field" or "field OP" (field names cannot contain whitespace)"#
        ),
        (
            "a\nb",
            #"query key "a\nb" has an unknown operator "b"; the operators are =, ==, !=, <, <=, >, >=, in, !in, ^= and exists"#
        )
    ])
    func malformedKeys(key: String, message: String) {
        let error = queryError(params: [key: 1])
        #expect(error?.code == .invalidQuery)
        #expect(error?.message == message)
    }

    @Test func theFirstBadKeyByBytesIsReported() {
        for _ in 0..<10 {
            #expect(
                queryError(params: ["z <>": 1, "b =>": 2, "ok": 3, "c like": 4])?.message.hasPrefix(
                    #"query key "b =>""#) == true)
        }
    }

    @Test func inNeedsAnArray() {
        let error = queryError(params: ["tag in": "a"])
        #expect(error?.code == .invalidQuery)
        #expect(error?.message == #"query key "tag in" needs an array of values, not string "a""#)
        #expect(queryError(params: ["tag in": 3])?.message.contains("not int 3") == true)
        #expect(queryError(params: ["tag in": []]) == nil)
    }

    @Test(arguments: [Value.null, [1, 2], ["x": 1]] as [Value])
    func rangeNeedsAnOrderedValue(value: Value) {
        let error = queryError(params: ["ts <": value])
        #expect(error?.code == .invalidQuery)
        #expect(
            error?.message
                == #"query key "ts <" compares with \#(value.typeName) \#(value); a range operator needs a number, string, bytes or bool"#
        )
    }

    @Test(arguments: [Value.bool(true), 1, 1.5, "x", .bytes([1])] as [Value])
    func rangeAcceptsScalars(value: Value) {
        #expect(queryError(params: ["ts >": value]) == nil)
    }

    @Test func operatorTokens() {
        #expect(Operator(token: "=") == .equal)
        #expect(Operator(token: "in") == .in)
        #expect(Operator(token: "=>") == nil)
        #expect(Operator.allCases.filter(\.isRange) == [.less, .lessOrEqual, .greater, .greaterOrEqual])
        #expect(Operator.allCases.map(\.description) == ["==", "!=", "<", "<=", ">", ">=", "in", "!in", "^=", "exists"])
    }

    @Test func everySpellingParsesAndNearMissesDoNot() {
        for op in Operator.allCases {
            #expect(Operator(token: op.rawValue) == op)
            #expect(Operator(token: op.rawValue[...]) == op)
        }
        // Tokens that share bytes or a packed prefix with a spelling, a NUL byte, and lengths
        // around the longest spelling.
        for token in ["", "===", "<<", "=<", "IN", "exist", "existss", "\u{0}=", "=\u{0}", "!i", "i", "^", "!", "in "] {
            #expect(Operator(token: token) == nil, "\(token.debugDescription)")
        }
    }

    @Test func keysOutsideTheCommonShapesTakeTheGeneralPath() throws {
        func parsed(_ key: String) throws -> [Condition] { try Query(params: [key: 1], options: nil).conditions }
        #expect(try parsed("a\u{7F}b") == [Condition(field: "a\u{7F}b", op: .equal, value: 1)])
        #expect(try parsed("a  <") == [Condition(field: "a", op: .less, value: 1)])
        #expect(try parsed("in <") == [Condition(field: "in", op: .less, value: 1)])
        #expect(try parsed("exists") == [Condition(field: "exists", op: .equal, value: 1)])
        #expect(queryError(params: ["a < b": 1])?.message.contains("3 words") == true)
        #expect(queryError(params: ["< 3": 1])?.message.contains("no field name") == true)
    }
}
