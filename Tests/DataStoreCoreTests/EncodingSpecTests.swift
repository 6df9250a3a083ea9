import DataStoreCore
import Testing

/// Every byte vector in docs/encoding.md, copied verbatim.
@Suite("docs/encoding.md vectors")
struct EncodingSpecTests {
    static let records: [(Document, String)] = [
        ([:], "01 00"),
        (["a": nil], "01 01 01 61 01"),
        (["a": true, "b": false], "01 02 01 61 03 01 62 02"),
        (["n": 1], "01 01 01 6E 04 01"),
        (["n": -1], "01 01 01 6E 04 FF"),
        (["n": 300], "01 01 01 6E 05 2C 01"),
        (["n": 1437108600], "01 01 01 6E 06 78 89 A8 55"),
        (["n": 9223372036854775807], "01 01 01 6E 07 FF FF FF FF FF FF FF 7F"),
        (["d": 1.5], "01 01 01 64 08 00 00 00 00 00 00 F8 3F"),
        (["s": "hé"], "01 01 01 73 09 03 68 C3 A9"),
        (["b": .bytes([0x00, 0xFF])], "01 01 01 62 0A 02 00 FF"),
        (["l": [1, "a"]], "01 01 01 6C 0B 06 02 04 01 09 01 61"),
        (["o": ["x": 1]], "01 01 01 6F 0C 05 01 01 78 04 01"),
        (
            ["from": "12", "created_ts": 1437108600.5],
            "01 02 0A 63 72 65 61 74 65 64 5F 74 73 08 00 00 20 5E 22 6A D5 41 04 66 72 6F 6D 09 02 31 32"
        )
    ]

    @Test("record vectors encode and decode", arguments: records.indices)
    func recordVector(index: Int) throws {
        let (document, bytes) = Self.records[index]
        #expect(hexString(try RecordCodec.encode(document)) == bytes)
        #expect(identical(try RecordCodec.decode(hex(bytes)), document))
    }

    static let malformedRecords: [(String, CodecError.Code)] = [
        ("", .truncated),
        ("02 00", .unsupportedVersion),
        ("01 01 01 61", .truncated),
        ("01 01 01 61 00", .corrupt),
        ("01 01 01 61 09 FF FF FF FF 0F", .truncated),
        ("01 01 01 61 05 01 00", .corrupt),
        ("01 02 01 62 01 01 61 01", .corrupt),
        ("01 01 01 61 01 00", .corrupt)
    ]

    @Test("malformed record vectors throw their codes", arguments: malformedRecords.indices)
    func malformedRecord(index: Int) {
        let (bytes, code) = Self.malformedRecords[index]
        #expect { try RecordCodec.decode(hex(bytes)) } throws: { ($0 as? CodecError)?.code == code }
    }

    static let keys: [(Value, String, String)] = [
        (nil, "10", "EF"),
        (false, "20", "DF"),
        (true, "21", "DE"),
        (0, "30 80 00 00 00 00 00 00 00 00", "CF 7F FF FF FF FF FF FF FF FF"),
        (0.0, "30 80 00 00 00 00 00 00 00 00", "CF 7F FF FF FF FF FF FF FF FF"),
        (.double(-0.0), "30 80 00 00 00 00 00 00 00 00", "CF 7F FF FF FF FF FF FF FF FF"),
        (1, "30 BF F0 00 00 00 00 00 00 00", "CF 40 0F FF FF FF FF FF FF FF"),
        (1.0, "30 BF F0 00 00 00 00 00 00 00", "CF 40 0F FF FF FF FF FF FF FF"),
        (-1, "30 40 0F FF FF FF FF FF FF 00", "CF BF F0 00 00 00 00 00 00 FF"),
        (1.5, "30 BF F8 00 00 00 00 00 00 00", "CF 40 07 FF FF FF FF FF FF FF"),
        (-1.5, "30 40 07 FF FF FF FF FF FF 00", "CF BF F8 00 00 00 00 00 00 FF"),
        (.double(.infinity), "30 FF F0 00 00 00 00 00 00 00", "CF 00 0F FF FF FF FF FF FF FF"),
        (.double(-.infinity), "30 00 0F FF FF FF FF FF FF 00", "CF FF F0 00 00 00 00 00 00 FF"),
        (.double(.nan), "30 00 00 00 00 00 00 00 00 00", "CF FF FF FF FF FF FF FF FF FF"),
        (.int(1 << 53), "30 C3 40 00 00 00 00 00 00 00", "CF 3C BF FF FF FF FF FF FF FF"),
        (.int((1 << 53) + 1), "30 C3 40 00 00 00 00 00 00 01 00 01", "CF 3C BF FF FF FF FF FF FF FE FF FE"),
        (.int(.max), "30 C3 DF FF FF FF FF FF FF 01 03 FF", "CF 3C 20 00 00 00 00 00 00 FE FC 00"),
        (.int(.min), "30 3C 1F FF FF FF FF FF FF 00", "CF C3 E0 00 00 00 00 00 00 FF"),
        (.int(-(1 << 53) - 1), "30 3C BF FF FF FF FF FF FE 01 00 01", "CF C3 40 00 00 00 00 00 01 FE FF FE"),
        ("", "40 00 01", "BF FF FE"),
        ("a", "40 61 00 01", "BF 9E FF FE"),
        ("ab", "40 61 62 00 01", "BF 9E 9D FF FE"),
        ("a\0b", "40 61 00 FF 62 00 01", "BF 9E FF 00 9D FF FE"),
        ("é", "40 C3 A9 00 01", "BF 3C 56 FF FE"),
        (.bytes([0]), "50 00 FF 00 01", "AF FF 00 FF FE"),
        (.bytes([]), "50 00 01", "AF FF FE"),
        ([], "60 00", "9F FF"),
        (
            ["a", 1], "60 40 61 00 01 30 BF F0 00 00 00 00 00 00 00 00",
            "9F BF 9E FF FE CF 40 0F FF FF FF FF FF FF FF FF"
        ),
        (["k": true], "70 40 6B 00 01 21 00", "8F BF 94 FF FE DE FF")
    ]

    @Test("key vectors encode and decode, ascending and descending", arguments: keys.indices)
    func keyVector(index: Int) throws {
        let (value, ascending, descending) = Self.keys[index]
        var key: [UInt8] = []
        KeyCodec.append(value, to: &key)
        #expect(hexString(key) == ascending)
        key = []
        KeyCodec.append(value, to: &key, descending: true)
        #expect(hexString(key) == descending)
        #expect(try KeyCodec.decode(hex(ascending)) == [value])
        #expect(try KeyCodec.decode(hex(descending), descending: [true]) == [value])
    }

    @Test("composite key vector")
    func compositeVector() throws {
        let key = KeyCodec.encode([(value: "12", descending: false), (value: 1437108600, descending: true)])
        #expect(hexString(key) == "40 31 32 00 01 CF 3E 2A 95 DD A1 FF FF FF FF")
        #expect(try KeyCodec.decode(key, descending: [false, true]) == ["12", 1437108600])
    }

    static let truncations: [(Value, Bool, String)] = [
        ("abcdefghijklmnopqrstuvwxyz", false, "40 61 62 63 64 65 66 67 68 69 6A 6B 6C 6D 00 02"),
        ("abcdefghijklm", false, "40 61 62 63 64 65 66 67 68 69 6A 6B 6C 6D 00 01"),
        (.bytes(Array(repeating: 0, count: 10)), false, "50 00 FF 00 FF 00 FF 00 FF 00 FF 00 FF 00 02"),
        ("abcdefghijklmnopqrstuvwxyz", true, "BF 9E 9D 9C 9B 9A 99 98 97 96 95 94 93 92 FF FD")
    ]

    @Test("truncation vectors with B = 16", arguments: truncations.indices)
    func truncationVector(index: Int) throws {
        let (value, descending, bytes) = Self.truncations[index]
        var key: [UInt8] = []
        let cut = KeyCodec.appendTruncating(value, to: &key, descending: descending, maxBytes: 16)
        #expect(hexString(key) == bytes)
        #expect(cut == bytes.hasSuffix("00 02") || bytes.hasSuffix("FF FD"))
        #expect(try KeyCodec.decodeComponents(key)[0].isTruncated == cut)
    }

    static let malformedKeys: [(String, CodecError.Code)] = [
        ("30 80", .truncated),
        ("05", .corrupt),
        ("40 61 00", .truncated),
        ("40 61 00 03", .corrupt),
        ("30 7F FF FF FF FF FF FF FF 00", .corrupt)
    ]

    @Test("malformed key vectors throw their codes", arguments: malformedKeys.indices)
    func malformedKey(index: Int) {
        let (bytes, code) = Self.malformedKeys[index]
        #expect { try KeyCodec.decode(hex(bytes)) } throws: { ($0 as? CodecError)?.code == code }
    }

    @Test("an empty key has no components")
    func emptyKey() throws {
        #expect(try KeyCodec.decode([]) == [])
    }
}
