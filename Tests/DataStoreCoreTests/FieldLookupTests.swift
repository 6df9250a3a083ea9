import TestSupport
import Testing
@testable import DataStoreCore

/// The field lookups behind ``RecordFields`` and ``RecordDecoder``: any order, any subset, names
/// alike in length and first bytes, long names, more fields than the inline index holds, and
/// damaged bytes, all checked against ``RecordCodec/decode(_:)-(UnsafeRawBufferPointer)`` and
/// the general path.
@Suite("Field lookup")
struct FieldLookupTests {
    /// Names that share a length and their first eight bytes, or differ only in the last byte,
    /// plus short, empty, non-ASCII and long (past the index's 255-byte entries) ones.
    static let names: [String] =
        [
            "", "a", "b", "id", "ie", "type", "typf", "message", "created_ts", "abcdefgh_1", "abcdefgh_2",
            "abcdefghij_1", "abcdefghij_2", "from_user_key", "to_user_key", "é", "nom_é", "😀",
            String(repeating: "n", count: 254) + "1", String(repeating: "n", count: 254) + "2",
            String(repeating: "long", count: 80), String(repeating: "long", count: 80) + "!"
        ] + (0..<30).map { "field_\($0)" }

    private static func randomValue(_ rng: inout SeededGenerator) -> Value {
        switch Int.random(in: 0..<8, using: &rng) {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &rng))
        case 2: return .int(Int64.random(in: -300...300, using: &rng))
        case 3: return .int(Int64.random(in: Int64.min...Int64.max, using: &rng))
        case 4: return .double(Double.random(in: -1e6...1e6, using: &rng))
        case 5:
            return .bytes((0..<Int.random(in: 0...9, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) })
        case 6:
            let pieces = ["a", "0123456789", "é", "—", "😀", "xyz "]
            return .string(
                (0..<Int.random(in: 0...12, using: &rng)).map { _ in pieces.randomElement(using: &rng)! }.joined())
        default: return .string(String(repeating: "s", count: Int.random(in: 0...40, using: &rng)))
        }
    }

    /// Reads `name` through the typed accessor that fits `expected`, and checks it equals it.
    private static func check(_ fields: borrowing RecordFields, _ name: String, _ expected: Value?) throws {
        switch expected {
        case nil, .null?:
            #expect(try fields.string(name) == nil)
            #expect(try fields.int(name) == nil)
            #expect(try fields.bool(name) == nil)
        case .string(let text)?: #expect(try fields.string(name).map { Array($0.utf8) } == Array(text.utf8))
        case .int(let number)?:
            #expect(try fields.int(name) == number)
            #expect(try fields.double(name) == Double(number))
        case .double(let number)?: #expect(try fields.double(name) == number)
        case .bool(let flag)?: #expect(try fields.bool(name) == flag)
        case .bytes(let bytes)?: #expect(try fields.bytes(name) == bytes)
        default: #expect(try fields.value(name) == expected)
        }
    }

    @Test("random subsets of names, read in random orders, equal RecordCodec.decode", arguments: [UInt64(1), 2, 3])
    func randomSubsets(seed: UInt64) throws {
        var rng = SeededGenerator(seed: seed)
        for _ in 0..<300 {
            let count = Int.random(in: 0...Self.names.count, using: &rng)
            var document = Document()
            for name in Self.names.shuffled(using: &rng).prefix(count) { document[name] = Self.randomValue(&rng) }
            let bytes = try RecordCodec.encode(document)
            let decoded = try RecordCodec.decode(bytes)
            try bytes.withUnsafeBytes { buffer throws in
                let fields = RecordFields(unsafeBytes: buffer)
                for name in Self.names.shuffled(using: &rng) {
                    try Self.check(fields, name, decoded[name])
                }
            }
        }
    }

    @Test("records past the index's sixteen fields find every field, the last ones by the scan")
    func pastCapacity() throws {
        var document = Document()
        for index in 0..<40 { document["field_\(index)"] = .int(Int64(index)) }
        document[String(repeating: "z", count: 300)] = "long name, after the index"
        let bytes = try RecordCodec.encode(document)
        try bytes.withUnsafeBytes { buffer throws in
            let fields = RecordFields(unsafeBytes: buffer)
            for index in (0..<40).reversed() { #expect(try fields.int("field_\(index)") == Int64(index)) }
            #expect(try fields.string(String(repeating: "z", count: 300)) == "long name, after the index")
            #expect(try fields.int("field_40") == nil)
            #expect(try fields.int(String(repeating: "z", count: 299)) == nil)
        }
    }

    @Test("a long name early ends the index; the fields after it are still found")
    func longNameFirst() throws {
        let long = String(repeating: "a", count: 256)
        let document: Document = [long: "first", "b": 2, "c": "third", "é": true]
        let bytes = try RecordCodec.encode(document)
        try bytes.withUnsafeBytes { buffer throws in
            let fields = RecordFields(unsafeBytes: buffer)
            #expect(try fields.bool("é") == true)
            #expect(try fields.string("c") == "third")
            #expect(try fields.int("b") == 2)
            #expect(try fields.string(long) == "first")
            #expect(try fields.string(String(repeating: "a", count: 255)) == nil)
        }
    }

    /// A Codable type whose keys share lengths and first bytes, decoded in declaration order.
    struct Alike: Codable, Equatable {
        var abcdefgh_2: String?
        var abcdefgh_1: String?
        var id: Int?
        var ie: Double?
        var type: String?
        var typf: Bool?
        var nom_é: String?
    }

    @Test("RecordDecoder equals DocumentDecoder for keys alike in length and first bytes", arguments: [UInt64(7), 8])
    func codableAlike(seed: UInt64) throws {
        var rng = SeededGenerator(seed: seed)
        let keys = ["abcdefgh_2", "abcdefgh_1", "id", "ie", "type", "typf", "nom_é", "other", "abcdefgh_3"]
        for _ in 0..<300 {
            var document = Document()
            for key in keys where Bool.random(using: &rng) {
                switch key {
                case "id": document[key] = .int(Int64.random(in: -1000...1000, using: &rng))
                case "ie": document[key] = .double(Double.random(in: -1...1, using: &rng))
                case "typf": document[key] = Bool.random(using: &rng) ? .bool(true) : .null
                default:
                    document[key] = .string(
                        ["x", "é—😀", "a longer string of some length", ""].randomElement(using: &rng)!)
                }
            }
            let bytes = try RecordCodec.encode(document)
            let expected = try DocumentDecoder().decode(Alike.self, from: RecordCodec.decode(bytes))
            #expect(try RecordDecoder().decode(Alike.self, from: bytes) == expected)
        }
    }

    /// The general path's answer for `name`: the value, or the error it throws.
    private static func general(_ name: String, in bytes: [UInt8]) -> Result<Value?, CodecError> {
        Result { () throws(CodecError) in try RecordCodec.field(name, in: bytes) }
    }

    @Test("damaged payloads end in the general path's error, naming the field")
    func damagedPayloads() throws {
        // {"a": "hé", "b": 1}: the string's second byte made invalid UTF-8.
        var invalid = try RecordCodec.encode(["a": "hé", "b": 1])
        let accent = invalid.firstIndex(of: 0xC3)!
        invalid[accent + 1] = 0x41
        // {"n": 1} written as an int16: not the canonical width.
        let wide: [UInt8] = [0x01, 0x01, 0x01, 0x6E, 0x05, 0x01, 0x00]
        // A string whose length runs past the end.
        let truncated: [UInt8] = [0x01, 0x01, 0x01, 0x61, 0x09, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F]
        for (bytes, name) in [(invalid, "a"), (wide, "n"), (truncated, "a")] {
            guard case .failure(let expected) = Self.general(name, in: bytes) else {
                Issue.record("the general path accepted \(hexString(bytes))")
                continue
            }
            bytes.withUnsafeBytes { buffer in
                let fields = RecordFields(unsafeBytes: buffer)
                for read in [{ try fields.string(name) as Any? }, { try fields.int(name) as Any? }] {
                    do {
                        _ = try read()
                        Issue.record("\(name) in \(hexString(bytes)) read without an error")
                    } catch let error as CodecError {
                        #expect(error.code == expected.code && error.message == expected.message)
                        #expect(error.offset == expected.offset && error.fieldPath == expected.fieldPath)
                        #expect(error.fieldPath == name)
                    } catch {
                        Issue.record("not a CodecError: \(error)")
                    }
                }
            }
        }
        // RecordDecoder reports the same damage as a DecodingError around it.
        #expect(throws: DecodingError.self) { try RecordDecoder().decode([String: String].self, from: invalid) }
    }

    @Test("a field of another type is unsupportedType naming it")
    func wrongType() throws {
        let bytes = try RecordCodec.encode(["id": 7, "type": "text"])
        try bytes.withUnsafeBytes { buffer throws in
            let fields = RecordFields(unsafeBytes: buffer)
            #expect(throws: CodecError.self) { try fields.string("id") }
            do {
                _ = try fields.int("type")
                Issue.record("a string read as an integer")
            } catch let error as CodecError {
                #expect(error.code == .unsupportedType && error.fieldPath == "type")
            }
        }
    }

    @Test("random damage never crashes; a record that still decodes reads the same", arguments: [UInt64(11), 12])
    func randomDamage(seed: UInt64) throws {
        var rng = SeededGenerator(seed: seed)
        for _ in 0..<400 {
            var document = Document()
            for name in Self.names.prefix(20).shuffled(using: &rng).prefix(Int.random(in: 1...12, using: &rng)) {
                document[name] = Self.randomValue(&rng)
            }
            var bytes = try RecordCodec.encode(document)
            for _ in 0..<Int.random(in: 1...3, using: &rng) {
                switch Int.random(in: 0..<3, using: &rng) {
                case 0: bytes[Int.random(in: 0..<bytes.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng)
                case 1: bytes.removeLast(Int.random(in: 0...Swift.min(3, bytes.count - 1), using: &rng))
                default: bytes[Int.random(in: 0..<bytes.count, using: &rng)] ^= 0x80
                }
            }
            let decoded = try? RecordCodec.decode(bytes)
            bytes.withUnsafeBytes { buffer in
                let fields = RecordFields(unsafeBytes: buffer)
                for name in Self.names.prefix(20) {
                    if let decoded {
                        #expect(throws: Never.self) { try Self.check(fields, name, decoded[name]) }
                    } else {
                        _ = try? fields.string(name)
                        _ = try? fields.double(name)
                    }
                }
            }
        }
    }

    @Test("non-ASCII strings read back exactly; invalid UTF-8 of every short length is rejected")
    func utf8() throws {
        let texts = [
            "é", "—", "😀", "nom_é—", "short ascii", "a longer ascii string past fifteen",
            "ü" + String(repeating: "x", count: 20)
        ]
        for text in texts {
            let bytes = try RecordCodec.encode(["s": .string(text)])
            try bytes.withUnsafeBytes { buffer throws in
                #expect(try RecordFields(unsafeBytes: buffer).string("s") == text)
            }
            #expect(try RecordDecoder().decode([String: String].self, from: bytes) == ["s": text])
        }
        for length in 1...20 {
            for position in 0..<length {
                var utf8 = Array(repeating: UInt8(ascii: "a"), count: length)
                utf8[position] = 0xFF
                var bytes: [UInt8] = [0x01, 0x01, 0x01, 0x73, 0x09]
                bytes.appendVarint(length)
                bytes += utf8
                bytes.withUnsafeBytes { buffer in
                    _ = #expect(throws: CodecError.self) { try RecordFields(unsafeBytes: buffer).string("s") }
                }
            }
        }
    }
}
