// The one JSON reader reads numbers exactly, refuses what it cannot hold, and names where.
import DataStoreCore
import Foundation
import ModelConformance
import Testing

@Suite("Exact JSON")
struct ExactJSONTests {
    @Test("a million random doubles written and read back are bit-identical")
    func doublesRoundTrip() throws {
        let doubles = NumberSamples.doubles(count: 1_000_000, seed: 0x5EED_0001)
        var mismatches: [(Double, String, Double)] = []
        for chunk in stride(from: 0, to: doubles.count, by: 1_000) {
            let values = doubles[chunk..<min(chunk + 1_000, doubles.count)].map(Value.double)
            let text = try JSONForm.text(.array(values))
            let back = try #require(try JSONForm.value(Array(text.utf8)).arrayValue)
            try #require(back.count == values.count)
            for (written, read) in zip(values, back) {
                guard case .double(let original) = written, case .double(let parsed) = read,
                    parsed.bitPattern == original.bitPattern
                else {
                    if case .double(let original) = written, mismatches.count < 5 {
                        mismatches.append((original, try JSONForm.text(written), read.doubleValue ?? .nan))
                    }
                    continue
                }
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches)")
    }

    @Test("the import fault's literal reads as the nearest double, not through a lossy decimal")
    func longDecimalLiteral() throws {
        #expect(try JSONForm.value(Array("1437108600.8203685".utf8)) == .double(1437108600.8203685))
        let expected = try #require(Double("1437108600.8203685"))
        guard case .double(let parsed) = try JSONForm.value(Array("1437108600.8203685".utf8)) else {
            Issue.record("not a double")
            return
        }
        #expect(parsed.bitPattern == expected.bitPattern)
        // A literal longer than a double holds is rounded once, correctly.
        #expect(
            try JSONForm.value(Array("0.1000000000000000055511151231257827021181583404541015625".utf8)) == .double(0.1))
        #expect(try JSONForm.value(Array("2.4703282292062328e-324".utf8)) == .double(.leastNonzeroMagnitude))
        #expect(try JSONForm.value(Array("1e-400".utf8)) == .double(0))
    }

    @Test(
        "integers that fit Int64 stay integers of either sign",
        arguments: [
            ("9223372036854775807", Int64.max), ("-9223372036854775808", Int64.min),
            ("1000000000000000001", 1_000_000_000_000_000_001), ("-1000000000000000001", -1_000_000_000_000_000_001),
            ("-1000000000000000000", -1_000_000_000_000_000_000), ("0", 0), ("-0", 0), ("-7", -7)
        ])
    func integersInRange(text: String, expected: Int64) throws {
        #expect(try JSONForm.value(Array(text.utf8)) == .int(expected))
        #expect(try JSONForm.value(Array("{\"x\": \(text)}".utf8)).objectValue?["x"] == .int(expected))
    }

    @Test(
        "every integer outside Int64 is one typed error naming the field, whatever its size or sign",
        arguments: [
            "9223372036854775808", "-9223372036854775809", "18446744073709551616", "-18446744073709551616",
            "123456789012345678901234567890", "-123456789012345678901234567890"
        ])
    func integersOutOfRange(text: String) {
        let error = #expect(throws: CodecError.self) {
            try JSONForm.value(Array("{\"a\": [1, {\"x\": \(text)}]}".utf8))
        }
        #expect(error?.code == .outOfRange)
        #expect(error?.fieldPath == "a[1].x")
        #expect(error?.message.contains(text) == true)
    }

    @Test("a number beyond a double's range is an error, not infinity")
    func doubleOverflow() {
        let error = #expect(throws: CodecError.self) { try JSONForm.value(Array("[1e400]".utf8)) }
        #expect(error?.code == .outOfRange)
        #expect(error?.fieldPath == "[0]")
    }

    @Test(
        "text that is not JSON is refused with its offset",
        arguments: [
            ("{\"a\": 01}", 6), ("{\"a\": 1,}", 8), ("[1 2]", 3), ("{\"a\" 1}", 5), ("\"\\x\"", 1), ("tru", 0),
            ("[1.]", 3), ("[-]", 2), ("[1e]", 3), ("{\"a\": 1} x", 9), ("\"a\tb\"", 2), ("[NaN]", 1), ("[+1]", 1),
            ("{\"a\": 1, \"a\": 2}", 9), ("\"\\ud800\"", 1), ("\"\\udc00\"", 1), ("\"\\ud800\\u0041\"", 1)
        ])
    func malformed(text: String, offset: Int) {
        let error = #expect(throws: CodecError.self) { try JSONForm.value(Array(text.utf8)) }
        #expect(error?.code == .corrupt || error?.code == .truncated, "\(String(describing: error))")
        #expect(error?.offset == offset, "\(String(describing: error))")
    }

    @Test("invalid UTF-8 inside a string is refused, raw or after an escape")
    func invalidUTF8() {
        for bytes: [UInt8] in [
            [0x22, 0xFF, 0x22], [0x22, 0x61, 0xC3, 0x22], [0x22, 0xED, 0xA0, 0x80, 0x22],
            [0x22, 0x5C, 0x6E, 0xC0, 0xAF, 0x22], [0x7B, 0x22, 0xFE, 0x22, 0x3A, 0x31, 0x7D]
        ] {
            let error = #expect(throws: CodecError.self) { try JSONForm.value(bytes) }
            #expect(error?.code == .corrupt, "\(bytes)")
        }
    }

    @Test("strings: escapes, surrogate pairs and raw UTF-8 read as written")
    func strings() throws {
        let text = #""quote \" backslash \\ slash \/ \b\f\n\r\t \u00e9 \ud83d\ude00 é 😀""#
        #expect(
            try JSONForm.value(Array(text.utf8)) == .string("quote \" backslash \\ slash / \u{8}\u{C}\n\r\t é 😀 é 😀"))
        let value: Value = .string("nul \u{0} bell \u{7} del \u{7F} \u{2028}")
        #expect(try JSONForm.value(Array(try JSONForm.text(value).utf8)) == value)
    }

    @Test("bytes come back from {\"$base64\": …}; an object that is not valid base64 stays an object")
    func bytes() throws {
        #expect(
            try JSONForm.value(Array(#"{"b": {"$base64": "AAH+/w=="}}"#.utf8)).objectValue?["b"]
                == .bytes([0, 1, 254, 255]))
        let notBase64 = try JSONForm.value(Array(#"{"$base64": "not base64!"}"#.utf8))
        #expect(notBase64 == .object(["$base64": "not base64!"]))
    }

    @Test("nesting past the format's depth is refused before it is read, at any depth")
    func depth() throws {
        let allowed =
            String(repeating: "[", count: RecordCodec.maxDepth) + String(repeating: "]", count: RecordCodec.maxDepth)
        #expect(try JSONForm.value(Array(allowed.utf8)).nestingDepth == RecordCodec.maxDepth)
        for depth in [RecordCodec.maxDepth + 1, 100_000] {
            let deep = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
            let error = #expect(throws: CodecError.self) { try JSONForm.value(Array(deep.utf8)) }
            #expect(error?.code == .tooDeep)
            let objects = String(repeating: "{\"a\":", count: depth) + "1" + String(repeating: "}", count: depth)
            #expect(throws: CodecError.self) { try JSONForm.value(Array(objects.utf8)) }
        }
    }

    @Test("the [String: Any] edge reads JSONSerialization's NSDecimalNumbers exactly")
    func decimalNumbers() throws {
        let text = #"{"ts": 1437108600.8203685, "n": -1000000000000000001, "min": -9223372036854775808}"#
        let parsed = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        let document = try Document(dictionary: parsed)
        #expect(document["ts"]?.doubleValue.map(\.bitPattern) == Double("1437108600.8203685")!.bitPattern)
        #expect(document["n"] == .int(-1_000_000_000_000_000_001))
        #expect(document["min"] == .int(.min))
        for tooLarge in ["18446744073709551616", "123456789012345678901234567890"] {
            let any = try JSONSerialization.jsonObject(with: Data("{\"x\": \(tooLarge)}".utf8)) as! [String: Any]
            let error = #expect(throws: CodecError.self) { try Document(dictionary: any) }
            #expect(error?.code == .outOfRange)
            #expect(error?.fieldPath == "x")
        }
        #expect(try Value(any: Decimal(string: "12.5")!) == .double(12.5))
        #expect(try Value(any: Decimal(string: "-42")!) == .int(-42))
        #expect(try Value(any: NSDecimalNumber(string: "0.1")) == .double(0.1))
    }
}
