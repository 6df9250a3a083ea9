import DataStoreCore
import Testing

@Suite("Document")
struct DocumentTests {
    @Test("fields are read, written and removed through the subscript")
    func subscripts() {
        var document: Document = ["id": "1", "n": 2]
        #expect(document["id"] == "1")
        #expect(document["missing"] == nil)
        document["n"] = nil
        document["z"] = .null
        #expect(document.count == 2)
        #expect(document["z"] == .null)
        #expect(Document(["a": 1]).fields == ["a": 1])
        #expect(!document.isEmpty && Document().isEmpty)
    }

    @Test("sortedFields orders names by UTF-8 bytes")
    func sortedFields() {
        let document: Document = ["b": 1, "a": 2, "é": 3, "Z": 4, "😀": 5, "\u{FFFF}": 6]
        #expect(document.sortedFields.map(\.name) == ["Z", "a", "b", "é", "\u{FFFF}", "😀"])
        #expect(Array(document).count == 6)
    }

    @Test("sortedFields: shared prefixes, proper prefixes, NUL bytes and substrings sort by bytes")
    func sortedFieldsByBytes() {
        let shared = "from_user_key_and_more"
        let slice = String(shared.dropFirst(5).prefix(8)) // "user_key", made from a substring
        let names = [
            "from_user_key", "from_user_kex", "from_use", "from", "a\u{0}b", "a\u{0}", "a", "", slice, shared,
            String(repeating: "x", count: 40), String(repeating: "x", count: 39) + "y"
        ]
        let document = Document(Dictionary(uniqueKeysWithValues: names.enumerated().map { ($1, Value.int(Int64($0))) }))
        let expected = names.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
        #expect(document.sortedFields.map(\.name) == expected)
        #expect(document.sortedFields.map(\.value) == expected.map { document[$0]! })
    }

    @Test("equality and hashing ignore field order and follow Value equality")
    func equality() {
        let a: Document = ["x": 1, "y": "s"]
        let b: Document = ["y": "s", "x": 1.0]
        #expect(a == b)
        #expect(a.hashValue == b.hashValue)
        #expect(a != ["x": 1])
        #expect(Document(["x": 1]) < Document(["x": 2]))
        #expect(a.description == #"{"x": 1, "y": "s"}"#)
    }
}
