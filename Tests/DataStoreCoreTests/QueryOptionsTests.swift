import DataStoreCore
import Testing

@Suite("Query option parsing")
struct QueryOptionsTests {
    private func query(_ options: [String: Value]) throws -> Query {
        try Query(params: nil, options: options)
    }

    @Test func limitAndOffset() throws {
        let q = try query(["limit": 10, "offset": 20])
        #expect(q.limit == 10)
        #expect(q.offset == 20)
        #expect(q.description == "all limit 10 offset 20")
        #expect(try query(["limit": 0]).limit == 0)
        #expect(try query(["limit": .double(-0.0)]).limit == 0)
        #expect(try query(["limit": 10.0, "offset": .double(3)]) == Query(limit: 10, offset: 3))
        #expect(try query(["limit": nil, "offset": nil, "sort": nil]).isEmpty)
        #expect(try query([:]).limit == nil)
    }

    @Test(
        arguments: [
            ("limit", Value.int(-1), "int -1"), ("limit", 1.5, "double 1.5"), ("limit", "10", #"string "10""#),
            ("limit", true, "bool true"), ("limit", .double(.nan), "double nan"),
            ("limit", .double(1e30), "double 1e+30"), ("offset", -5, "int -5"), ("offset", [1], "array [1]")
        ] as [(String, Value, String)])
    func badCounts(option: String, value: Value, shown: String) {
        let error = queryError(options: [option: value])
        #expect(error?.code == .invalidOption)
        #expect(error?.message == "query option \"\(option)\" must be a non-negative integer, not \(shown)")
    }

    @Test func unknownOption() {
        let error = queryError(options: ["limt": 5, "zz": 1])
        #expect(error?.code == .invalidOption)
        #expect(error?.message == #"query option "limt" is unknown; the options are "limit", "offset" and "sort""#)
        #expect(queryError(options: ["ascending": true])?.message.contains(#""ascending""#) == true)
    }

    @Test func seedSortForm() throws {
        #expect(
            try query(["sort": ["created_ts": ["ascending": false]]]).sort == [
                SortKey(field: "created_ts", ascending: false)
            ])
        #expect(try query(["sort": ["created_ts": ["ascending": true]]]).sort == [SortKey(field: "created_ts")])
        #expect(try query(["sort": ["created_ts": [:]]]).sort == [SortKey(field: "created_ts", ascending: true)])
        #expect(try query(["sort": [:]]).sort.isEmpty)
    }

    @Test func seedSortFormWithTwoFieldsIsAmbiguous() {
        let error = queryError(options: ["sort": ["b": ["ascending": false], "a": [:]]])
        #expect(error?.code == .invalidOption)
        #expect(
            error?.message
                == #"query option "sort" names 2 fields ("a", "b") in one object, whose order is not defined; use the ordered form, an array such as [{"a": {"ascending": false}}, "b"] or ["-a", "b"]"#
        )
    }

    @Test func orderedSortForm() throws {
        let q = try query(["sort": [["b": ["ascending": false]], "a", "-c", ["d": [:]]]])
        #expect(
            q.sort == [
                SortKey(field: "b", ascending: false), SortKey(field: "a"), SortKey(field: "c", ascending: false),
                SortKey(field: "d")
            ])
        #expect(q.description == "all sort b desc, a asc, c desc, d asc")
        #expect(try query(["sort": []]).sort.isEmpty)
        #expect(try query(["sort": "-created_ts"]).sort == [SortKey(field: "created_ts", ascending: false)])
        #expect(try query(["sort": [["-x": ["ascending": true]]]]).sort == [SortKey(field: "-x")])
    }

    @Test(
        arguments: [
            (Value.int(1), #"query option "sort" must be an object, an array or a string, not int 1"#),
            (
                ["a": true],
                #"query option "sort" gives the field "a" bool true; write {"ascending": true} or {"ascending": false}"#
            ),
            (
                ["a": ["ascending": 0]],
                #"query option "sort" has "ascending" int 0 for the field "a"; it must be true or false"#
            ),
            (
                ["a": ["ascending": "no"]],
                #"query option "sort" has "ascending" string "no" for the field "a"; it must be true or false"#
            ),
            (
                ["a": ["asc": false]],
                #"query option "sort" has the unknown key "asc" for the field "a"; the only key is "ascending""#
            ),
            (
                [1],
                #"query option "sort" has the element int 1; each element must be a string "field" or "-field", or an object with one field such as {"field": {"ascending": false}}"#
            ),
            (
                [["a": [:], "b": [:]]],
                #"query option "sort" has the element object {"a": {}, "b": {}}; each element must be a string "field" or "-field", or an object with one field such as {"field": {"ascending": false}}"#
            ),
            (
                [[:]],
                #"query option "sort" has the element object {}; each element must be a string "field" or "-field", or an object with one field such as {"field": {"ascending": false}}"#
            ),
            ([""], #"query option "sort" has the field ""; a field name is non-empty and has no whitespace"#),
            (["-"], #"query option "sort" has the field "-"; a field name is non-empty and has no whitespace"#),
            (["a b"], #"query option "sort" has the field "a b"; a field name is non-empty and has no whitespace"#),
            (["a", "-a"], #"query option "sort" names the field "a" twice"#)
        ] as [(Value, String)])
    func badSorts(sort: Value, message: String) {
        let error = queryError(options: ["sort": sort])
        #expect(error?.code == .invalidOption)
        #expect(error?.message == message)
    }

    @Test func paramsAreCheckedBeforeOptions() {
        #expect(queryError(params: ["a <>": 1], options: ["limit": -1])?.code == .invalidQuery)
    }
}
