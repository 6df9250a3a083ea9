// Documents as JSON: numbers keep int/double/bool apart on Linux, bytes round-trip, excerpts are bounded.
import DataStoreCore
@testable import DataStoreREST
import Foundation
import Testing

@Suite("JSON on the wire")
struct JSONWireTests {
    @Test("JSON bodies keep ints, doubles and Booleans apart")
    func numberTypes() throws {
        let body = Data(
            #"""
            {"int": 1, "zero": 0, "one_point_zero": 1.0, "exponent": 1e3, "negative": -7, "false": false,
             "true": true, "big": 9223372036854775807, "ts": 1437118258.0, "fraction": 0.1,
             "list": [1, 1.5, true, null, "s"], "nested": {"n": 2, "b": false}}
            """#.utf8)
        let document = try #require(try JSONWire.decode(body, expected: .object, exchange: "test").first)
        #expect(document["int"]?.typeName == "int")
        #expect(document["zero"]?.typeName == "int")
        #expect(document["one_point_zero"]?.typeName == "double")
        #expect(document["exponent"]?.typeName == "double")
        #expect(document["negative"] == .int(-7))
        #expect(document["false"]?.typeName == "bool")
        #expect(document["true"] == .bool(true))
        #expect(document["big"] == .int(.max))
        #expect(document["ts"]?.typeName == "double")
        #expect(document["fraction"] == .double(0.1))
        #expect(document["list"]?.arrayValue?.map(\.typeName) == ["int", "double", "bool", "null", "string"])
        #expect(document["nested"]?.objectValue?["b"]?.typeName == "bool")
        #expect(document["nested"]?.objectValue?["n"]?.typeName == "int")
    }

    @Test("documents written and read back are equal, types included")
    func roundTrip() throws {
        let document: Document = [
            "id": "m1", "int": 42, "double": 1437118258.0, "small": .double(.leastNonzeroMagnitude), "large": 1e300,
            "negativeZero": -0.0,
            "bool": false, "null": nil, "bytes": .bytes([0, 1, 254, 255]), "empty": .bytes([]),
            "text": "quote \" backslash \\ newline \n tab \t bell \u{7} é € 😀",
            "array": [1, 2.5, "x", [true]], "object": ["inner": ["deep": .bytes([9])]]
        ]
        let data = try JSONWire.encode(document)
        let back = try #require(try JSONWire.decode(data, expected: .object, exchange: "test").first)
        #expect(back == document)
        for (name, value) in document {
            #expect(back[name]?.typeName == value.typeName, "field \(name)")
        }
        let text = String(decoding: data, as: UTF8.self)
        #expect(text.contains(#""double":1437118258.0"#))
        #expect(text.contains(#""bytes":{"$base64":"AAH+/w=="}"#))
        #expect(text.contains(#"\u0007"#))
    }

    @Test("numbers JSON cannot carry are refused, naming the field")
    func nonFinite() {
        #expect(throws: DataStoreError.self) { try JSONWire.encode(["a": ["b": .double(.infinity)]]) }
        do {
            _ = try JSONWire.encode(["a": ["b": .double(.nan)]])
        } catch {
            #expect(error.code == .invalidValue)
            #expect(error.message.contains("a.b"))
        }
    }

    @Test("query values: shortest exact numbers, verbatim strings")
    func queryText() throws {
        #expect(try RestQuery.text(1437118258.0, key: "k") == "1437118258")
        #expect(try RestQuery.text(0.1, key: "k") == "0.1")
        #expect(try RestQuery.text(1e20, key: "k") == "1e+20")
        #expect(try RestQuery.text(-3, key: "k") == "-3")
        #expect(try RestQuery.text("a b=c&d", key: "k") == "a b=c&d")
        #expect(try RestQuery.text(false, key: "k") == "false")
        #expect(try RestQuery.text(["a", 1, 2.5], key: "k") == #"["a",1,2.5]"#)
        #expect(RestQuery.percentEncoded("created_ts >=") == "created_ts%20%3E%3D")
        #expect(RestQuery.percentEncoded("é/+?") == "%C3%A9%2F%2B%3F")
    }

    @Test("body excerpts keep at most 512 bytes and never split a character")
    func excerpts() {
        #expect(BodyExcerpt(Data()).description == "(empty body)")
        #expect(BodyExcerpt(Data("short".utf8)).description == "short")
        let long = Data(String(repeating: "€", count: 300).utf8) // 900 bytes
        let excerpt = BodyExcerpt(long).description
        let text = excerpt.components(separatedBy: "…").first ?? ""
        #expect(text.utf8.count == 510)
        #expect(text.allSatisfy { $0 == "€" })
        #expect(excerpt.hasSuffix("… (900 bytes)"))
        let binary = Data((0..<2000).map { _ in UInt8(0xFF) })
        #expect(BodyExcerpt(binary).description.components(separatedBy: "…").first!.utf8.count <= 512)
    }
}
