import DataStoreCore
import Testing

@Suite("RecordCodec")
struct RecordCodecTests {
    @Test("records round-trip exactly: int versus double, -0.0, NaN payloads, bytes", arguments: [UInt64(71), 72, 73])
    func roundTrip(seed: UInt64) throws {
        var generator = ValueGenerator(seed: seed)
        for _ in 0..<300 {
            let document = generator.document(depth: 3, maxFields: 6)
            let bytes = try RecordCodec.encode(document)
            let decoded = try RecordCodec.decode(bytes)
            #expect(identical(decoded, document), "\(document)")
            #expect(try RecordCodec.encode(decoded) == bytes)
            for (name, value) in document {
                let field = try RecordCodec.field(name, in: bytes)
                #expect(field.map { identical($0, value) } == true)
            }
            #expect(try RecordCodec.field("\u{10FFFF} absent", in: bytes) == nil)
            #expect(try RecordCodec.field("", in: bytes) == document[""])
        }
    }

    @Test("encoding is deterministic and sorted by name bytes")
    func deterministic() throws {
        var a = Document(), b = Document()
        for name in ["b", "a", "é", "Z"] { a[name] = .string(name) }
        for name in ["Z", "é", "a", "b"] { b[name] = .string(name) }
        #expect(try RecordCodec.encode(a) == RecordCodec.encode(b))
    }

    @Test(
        "every strict prefix of a record throws; damaged bytes throw or decode canonically", arguments: [UInt64(81), 82]
    )
    func malformed(seed: UInt64) throws {
        var generator = ValueGenerator(seed: seed)
        for _ in 0..<80 {
            let bytes = try RecordCodec.encode(generator.document(depth: 3, maxFields: 5))
            for length in 0..<bytes.count {
                #expect(throws: CodecError.self) { try RecordCodec.decode(Array(bytes[..<length])) }
                _ = try? RecordCodec.field("a", in: Array(bytes[..<length]))
            }
            for index in bytes.indices {
                var damaged = bytes
                damaged[index] ^= UInt8(truncatingIfNeeded: generator.rng.next() | 1)
                // Accepted bytes must be canonical: they re-encode to themselves.
                if let document = try? RecordCodec.decode(damaged) {
                    #expect(try RecordCodec.encode(document) == damaged)
                }
                for (name, _) in (try? RecordCodec.decode(bytes)) ?? [:] {
                    _ = try? RecordCodec.field(name, in: damaged)
                }
            }
        }
    }

    @Test("hostile lengths and counts throw before allocating")
    func hostileLengths() {
        let cases = [
            "01 FF FF FF FF 0F", // 2^32 - 1 fields
            "01 01 01 61 0B FF FF FF FF 0F", // array body beyond the end
            "01 01 01 61 0B 05 FF FF FF FF 0F", // 2^32 - 1 elements in a 5-byte body
            "01 01 01 61 0A FF FF FF FF 7F", // varint wider than 32 bits
            "01 01 01 61 0A 80 80 80 80 80 01", // varint longer than 5 bytes
            "01 01 01 61 0A 80 00", // non-minimal varint
            "01 01 FF FF FF FF 0F", // name length beyond the end
            "01 01 02 C3 28 01", // invalid UTF-8 name
            "01 01 01 61 09 02 C3 28", // invalid UTF-8 string
            "01 01 01 61 0C 03 01 01 61" // nested object missing its value
        ]
        for text in cases {
            #expect(throws: CodecError.self, "\(text)") { try RecordCodec.decode(hex(text)) }
        }
    }

    @Test("nesting deeper than maxDepth is rejected when decoding and validating")
    func depth() throws {
        var value: Value = 1
        for _ in 0..<(RecordCodec.maxDepth - 1) { value = [value] }
        let ok: Document = ["x": value]
        #expect(ok.nestingDepth == RecordCodec.maxDepth)
        try RecordCodec.validate(ok)
        #expect(identical(try RecordCodec.decode(try RecordCodec.encode(ok)), ok))
        let deep: Document = ["x": [value]]
        #expect { try RecordCodec.validate(deep) } throws: { ($0 as? CodecError)?.code == .tooDeep }
        // Hand-made bytes 100 arrays deep: [[[…null…]]].
        var inner: [UInt8] = [0x01]
        for _ in 0..<100 {
            let body = [0x01] + inner // count 1, then the element
            var length = body.count, prefix: [UInt8] = []
            while length >= 0x80 {
                prefix.append(UInt8(length & 0x7F) | 0x80)
                length >>= 7
            }
            inner = [0x0B] + prefix + [UInt8(length)] + body
        }
        let record: [UInt8] = [0x01, 0x01, 0x01, 0x61] + inner
        #expect { try RecordCodec.decode(record) } throws: { ($0 as? CodecError)?.code == .tooDeep }
    }

    @Test("errors name the field path and offset")
    func errorPath() throws {
        let document: Document = ["attachments": [1, 2, ["owner": "x"]]]
        var bytes = try RecordCodec.encode(document)
        // Corrupt the last string's UTF-8 ("x" is the last byte).
        bytes[bytes.count - 1] = 0xFF
        #expect {
            try RecordCodec.decode(bytes)
        } throws: { error in
            guard let error = error as? CodecError else { return false }
            return error.code == .corrupt && error.fieldPath == "attachments[2].owner" && error.offset != nil
                && error.description.contains("attachments[2].owner")
        }
    }

    @Test("names that are canonically equivalent but differ in bytes are rejected as duplicates")
    func canonicalDuplicateNames() {
        // "e\u{301}" (65 CC 81) sorts before "\u{E9}" (C3 A9); both become one Swift key.
        let bytes = hex("01 02 03 65 CC 81 04 01 02 C3 A9 04 02")
        #expect { try RecordCodec.decode(bytes) } throws: { ($0 as? CodecError)?.code == .corrupt }
    }
}
