// Nested fields: "address.city" in conditions and sorts, "\." for a dot within a name, arrays of
// objects gathered, and the record-bytes reader agreeing with the document one.
import DataStoreCore
import Testing

@Suite("Field paths")
struct FieldPathTests {
    static let person: Document = [
        "name": "Ada",
        "address": ["city": "Paris", "geo": ["lat": 48.85]],
        "tags": [["name": "a", "n": 1], ["name": "b"], "loose", ["name": ["c", "d"]]],
        "a.b": "literal",
        "empty": []
    ]

    @Test("a path splits on unescaped dots; \\. and \\\\ are a dot and a backslash within a name")
    func parsing() throws {
        #expect(try FieldPath(parsing: "address.geo.lat").components == ["address", "geo", "lat"])
        #expect(try FieldPath(parsing: #"a\.b"#).components == ["a.b"])
        #expect(try FieldPath(parsing: #"a\\.b"#).components == [#"a\"#, "b"])
        #expect(try FieldPath(parsing: "plain").components == ["plain"])
        #expect(FieldPath(components: ["a.b", "c"]).description == #"a\.b.c"#)
        #expect(FieldPath.escaping(#"x.y\z"#) == #"x\.y\\z"#)
        for bad in ["a..b", "a.", ".a", #"a\x"#, #"a\"#] {
            #expect(throws: DataStoreError.self, "\(bad)") { try FieldPath(parsing: bad) }
        }
    }

    @Test("following a path: objects step in, arrays gather their objects' values, scalars stop")
    func following() {
        let person = Self.person
        #expect(person.value(atPath: "address.city") == "Paris")
        #expect(person.value(atPath: "address.geo.lat") == 48.85)
        #expect(person.value(atPath: "address.zip") == nil)
        #expect(person.value(atPath: "name.first") == nil)
        #expect(person.value(atPath: "tags.name") == ["a", "b", "c", "d"])
        #expect(person.value(atPath: "tags.n") == [1])
        #expect(person.value(atPath: "tags.zip") == nil)
        #expect(person.value(atPath: "empty.x") == nil)
        #expect(person.value(atPath: #"a\.b"#) == "literal")
        #expect(person.value(atPath: "a.b") == nil)
    }

    @Test("conditions and sorts name paths; a bad path is a typed error quoting the key")
    func queries() throws {
        let person = Self.person
        let matching: [[String: Value]] = [
            ["address.city": "Paris"], ["address.geo.lat >": 40], ["tags.name": "c"], ["tags.name in": ["x", "b"]],
            ["tags.name ^=": "d"], ["address.zip exists": false], ["tags.n exists": true], [#"a\.b"#: "literal"],
            ["tags.name !=": "z"]
        ]
        for params in matching { #expect(try Query(params: params, options: nil).matches(person), "\(params)") }
        let failing: [[String: Value]] = [
            ["address.city": "Rome"], ["tags.name": "loose"], ["a.b": "literal"], ["address.zip !=": 1],
            ["tags.name !in": ["a"]]
        ]
        for params in failing { #expect(try !Query(params: params, options: nil).matches(person), "\(params)") }
        let error = try #require(throws: DataStoreError.self) { try Query(params: ["a..b >": 1], options: nil) }
        #expect(
            error.code == .invalidQuery && error.message.hasPrefix(#"query key "a..b >": field "a..b""#), "\(error)")
        let sort = try #require(throws: DataStoreError.self) { try Query(params: nil, options: ["sort": "-a."]) }
        #expect(sort.code == .invalidOption, "\(sort)")
        let query = try Query(params: nil, options: ["sort": "-address.zip"])
        let documents: [Document] = [
            ["id": 1, "address": ["zip": 10]], ["id": 2, "address": ["zip": 30]], ["id": 3],
            ["id": 4, "address": ["zip": 20]]
        ]
        #expect(query.evaluate(documents, idField: "id").map { $0["id"] } == [2, 4, 1, 3])
    }

    @Test("the record reader follows paths through the bytes and agrees with the document")
    func recordBytes() throws {
        let bytes = try RecordCodec.encode(Self.person)
        let paths = [
            "address.city", "address.geo.lat", "address.geo", "address.zip", "tags.name", "tags.n", "name.first",
            #"a\.b"#, "a.b", "empty.x", "name"
        ]
        for path in paths {
            let read = try bytes.withUnsafeBytes { try RecordCodec.value(atPath: path, in: $0) }
            #expect(read == Self.person.value(atPath: path), "\(path)")
        }
        let conditions: [[String: Value]] = [
            ["address.city": "Paris", "name": "Ada"], ["address.city": "Rome"], ["tags.name": "d", "name >": "A"],
            ["address.zip exists": false, "name": "Ada"], [#"a\.b"#: "literal", "address.geo.lat <": 50]
        ]
        for params in conditions {
            let query = try Query(params: params, options: nil)
            let predicates = RecordPredicate.ordered(query.conditions)
            let fromBytes = try bytes.withUnsafeBytes { try RecordPredicate.all(predicates, match: $0) }
            #expect(fromBytes == query.matches(Self.person), "\(params)")
        }
    }
}
