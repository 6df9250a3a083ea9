import TestSupport
import DataStoreCore
import Foundation
import Testing

@Suite("ObjectCoder conversion")
struct ObjectCoderTests {
    @Test("the seed's Message round-trips through Document and the record format")
    func message() throws {
        let original = Message(dictionary: [
            "id": "m1", "from_user_key": "1234567890", "to_user_key": "0987654321",
            "message": "hello", "type": "text", "created_ts": 1437108600.25
        ])
        let document = try Document(dictionary: original.toDictionary())
        #expect(document["created_ts"] == .double(1437108600.25))
        #expect(document["from_user_key"] == "1234567890")
        let stored = try RecordCodec.decode(try RecordCodec.encode(document))
        let copy = Message(dictionary: stored.toDictionary())
        #expect(copy.id == "m1" && copy.from_user_key == "1234567890" && copy.to_user_key == "0987654321")
        #expect(copy.message == "hello" && copy.type == "text" && copy.created_ts == 1437108600.25)
        #expect(Message.identifierKey() == "id")
    }

    @Test("every supported Swift and Foundation type converts")
    func everyType() throws {
        let date = Date(timeIntervalSince1970: 1_500_000_000.5)
        let missing: String? = nil
        let dictionary: [String: Any] = [
            "string": "s", "substring": "xsub".dropFirst(), "character": Character("c"),
            "nsstring": NSString(string: "ns"),
            "bool": true, "int": -5, "int8": Int8(-8), "int16": Int16(16), "int32": Int32(32), "int64": Int64.min,
            "uint": UInt(1), "uint8": UInt8(8), "uint16": UInt16(16), "uint32": UInt32(32), "uint64": UInt64(Int64.max),
            "double": 2.5, "whole_double": 2.0, "empty_ints": [Int](), "float": Float(1.5), "data": Data([0, 1]),
            "bytes": [UInt8]([2, 3]), "date": date,
            "null": NSNull(), "nil": missing as Any, "array": [1, "a", [true]] as [Any],
            "nested": ["x": ["y": 1]] as [String: Any],
            "nsnumber_bool": NSNumber(value: true), "nsnumber_int": NSNumber(value: 7),
            "nsnumber_double": NSNumber(value: 0.5),
            "nsnumber_uint": NSNumber(value: UInt64(9)), "nsarray": NSArray(array: [1, 2]),
            "nsdictionary": NSDictionary(dictionary: ["k": "v"]), "value": Value.bytes([9])
        ]
        let document = try Document(dictionary: dictionary)
        let expected: Document = [
            "string": "s", "substring": "sub", "character": "c", "nsstring": "ns",
            "bool": true, "int": -5, "int8": -8, "int16": 16, "int32": 32, "int64": .int(.min),
            "uint": 1, "uint8": 8, "uint16": 16, "uint32": 32, "uint64": .int(.max),
            "double": 2.5, "whole_double": 2.0, "empty_ints": [], "float": 1.5, "data": .bytes([0, 1]),
            "bytes": .bytes([2, 3]), "date": 1_500_000_000.5,
            "null": nil, "nil": nil, "array": [1, "a", [true]], "nested": ["x": ["y": 1]],
            "nsnumber_bool": true, "nsnumber_int": 7, "nsnumber_double": 0.5, "nsnumber_uint": 9, "nsarray": [1, 2],
            "nsdictionary": ["k": "v"], "value": .bytes([9])
        ]
        #expect(identical(document, expected), "\(document)")
        // And back: Int for ints, Double, Bool, Data for bytes, NSNull for null.
        let back = document.toDictionary()
        #expect(back["int"] as? Int == -5)
        #expect(back["double"] as? Double == 2.5)
        #expect(back["bool"] as? Bool == true)
        #expect(back["data"] as? Data == Data([0, 1]))
        #expect(back["null"] is NSNull)
        #expect((back["nested"] as? [String: Any])?["x"] is [String: Any])
        #expect(identical(try Document(dictionary: back), document))
    }

    @Test("unsupported values are reported with their field path and Swift type")
    func unsupported() {
        struct Owner {}
        let dictionary: [String: Any] = ["attachments": [1, 2, ["owner": Owner()] as [String: Any]] as [Any]]
        #expect {
            try Document(dictionary: dictionary)
        } throws: { error in
            guard let error = error as? CodecError else { return false }
            return error.code == .unsupportedType && error.fieldPath == "attachments[2].owner"
                && error.message.contains("Owner")
        }
    }

    @Test("unsigned integers above Int64.max are out of range, naming the field")
    func unsignedOverflow() {
        #expect {
            try Document(dictionary: ["big": UInt64.max])
        } throws: { ($0 as? CodecError)?.code == .outOfRange && ($0 as? CodecError)?.fieldPath == "big" }
        #expect(throws: CodecError.self) { try Document(dictionary: ["n": NSNumber(value: UInt64.max)]) }
    }

    @Test("dictionaries nested deeper than maxDepth are rejected")
    func tooDeep() {
        var nested: [String: Any] = ["leaf": 1]
        for _ in 0..<RecordCodec.maxDepth { nested = ["n": nested] }
        #expect { try Document(dictionary: nested) } throws: { ($0 as? CodecError)?.code == .tooDeep }
    }

    @Test("JSONSerialization output converts with bools, ints and doubles kept apart")
    func jsonSerialization() throws {
        let object = try JSONSerialization.jsonObject(
            with: Data(#"{"a":true,"b":1,"c":1.5,"d":null,"e":"s","f":[0,false]}"#.utf8))
        let document = try Document(dictionary: object as! [String: Any])
        #expect(identical(document, ["a": true, "b": 1, "c": 1.5, "d": nil, "e": "s", "f": [0, false]]))
    }
}
