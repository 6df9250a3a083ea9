import TestSupport
import Testing
@testable import DataStoreCore

@Suite("RecordWriter")
struct RecordWriterTests {
    /// The record `RecordWriter` makes of `fields`, each written through `write(_: Value?, for:)`
    /// in the order given.
    private func written(_ fields: [(name: String, value: Value)]) throws -> [UInt8] {
        var writer = RecordWriter()
        for field in fields { try writer.write(field.value, for: field.name) }
        return try writer.finish()
    }

    /// Writes `value` through the typed overload that matches its case, when there is one, so the
    /// property tests exercise every overload and not only `write(_: Value?, for:)`.
    private func writeTyped(_ value: Value, for name: String, into writer: inout RecordWriter) throws {
        switch value {
        case .string(let text): writer.write(text, for: name)
        case .double(let number): writer.write(number, for: name)
        case .int(let number): writer.write(Int(number), for: name)
        case .bool(let flag): writer.write(flag, for: name)
        default: try writer.write(value, for: name)
        }
    }

    /// A record of `null` fields, written out by hand: the format byte, the count, then for each
    /// name its length, its UTF-8 bytes and the null tag — so the order is stated, not computed.
    private func nullRecord(_ names: [String]) -> [UInt8] {
        var bytes: [UInt8] = [0x01, UInt8(names.count)]
        for name in names { bytes += [UInt8(name.utf8.count)] + Array(name.utf8) + [0x01] }
        return bytes
    }

    private static let sample: Document = [
        "id": "r1", "created_ts": 1_437_108_600.5, "count": 42, "on": true, "tags": ["a", "b"],
        "owner": .object(["name": "ann", "age": 30]), "raw": .bytes([0, 255]), "gone": .null
    ]

    // MARK: Order of writing

    @Test(
        "fields written in name order, in reverse or shuffled give exactly RecordCodec's bytes",
        arguments: [UInt64(1), 2, 3])
    func anyWritingOrder(seed: UInt64) throws {
        let expected = try RecordCodec.encode(Self.sample)
        let sorted = Self.sample.sortedFields
        var rng = SeededGenerator(seed: seed)
        #expect(try written(sorted) == expected)
        #expect(try written(sorted.reversed()) == expected)
        #expect(try written(sorted.shuffled(using: &rng)) == expected)
        // Sorted except for the last pair: the in-order shortcut must give way to sorting late.
        #expect(try written(sorted.dropLast(2) + sorted.suffix(2).reversed()) == expected)
    }

    @Test("an empty writer gives the record of an empty document")
    func empty() throws {
        #expect(try RecordWriter().finish() == RecordCodec.encode(Document()))
    }

    // MARK: Each overload

    @Test("strings, including empty, non-ASCII, emoji and ones longer than a one-byte length, match RecordCodec")
    func strings() throws {
        let texts = ["", "plain", "é", "e\u{301}", "😀", "日本語", "\0", "\u{10FFFF}", String(repeating: "x", count: 200)]
        for text in texts {
            var writer = RecordWriter()
            writer.write(text, for: "s")
            #expect(try writer.finish() == RecordCodec.encode(["s": .string(text)]), "\(text.debugDescription)")
        }
    }

    @Test("doubles keep their bits: integral values stay doubles, -0.0 stays negative, NaN and infinities pass")
    func doubles() throws {
        let numbers: [Double] = [
            3.0, 0.0, -0.0, 1.5, -1e300, .leastNonzeroMagnitude, .greatestFiniteMagnitude,
            .infinity, -.infinity, .nan, 9_007_199_254_740_993.0
        ]
        for number in numbers {
            var writer = RecordWriter()
            writer.write(number, for: "d")
            let bytes = try writer.finish()
            #expect(try bytes == RecordCodec.encode(["d": .double(number)]), "\(number)")
            // 3.0 is written as a double, not as the integer 3 (which would be the int8 tag).
            #expect(identical(try RecordCodec.decode(bytes)["d"]!, .double(number)), "\(number)")
        }
    }

    @Test("integers take the smallest width that holds them, at every width boundary")
    func integers() throws {
        let numbers: [Int] = [
            0, 1, -1, 127, 128, -128, -129, 32767, 32768, -32768, -32769,
            Int(Int32.max), Int(Int32.max) + 1, Int(Int32.min), Int(Int32.min) - 1, .max, .min
        ]
        for number in numbers {
            var writer = RecordWriter()
            writer.write(number, for: "n")
            #expect(try writer.finish() == RecordCodec.encode(["n": .int(Int64(number))]), "\(number)")
        }
        // The widths themselves: tag and payload size after the name "n" (2 bytes) and the count.
        func payload(_ number: Int) throws -> [UInt8] {
            var writer = RecordWriter()
            writer.write(number, for: "n")
            return Array(try writer.finish().dropFirst(4))
        }
        #expect(try payload(127) == [0x04, 0x7F])
        #expect(try payload(128) == [0x05, 0x80, 0x00])
        #expect(try payload(-129) == [0x05, 0x7F, 0xFF])
        #expect(try payload(32767) == [0x05, 0xFF, 0x7F])
        #expect(try payload(32768) == [0x06, 0x00, 0x80, 0x00, 0x00])
        #expect(try payload(.max).count == 9 && payload(.min).count == 9)
    }

    @Test("Booleans match RecordCodec")
    func booleans() throws {
        var writer = RecordWriter()
        writer.write(true, for: "yes")
        writer.write(false, for: "no")
        #expect(try writer.finish() == RecordCodec.encode(["yes": true, "no": false]))
    }

    @Test("values of every kind — null, bytes, arrays, nested objects — match RecordCodec")
    func values() throws {
        let long = Value.array((0..<100).map { .string("element \($0)") }) // a body longer than 127 bytes
        let values: [Value] = [
            .null, .bytes([]), .bytes([0, 1, 0x7F, 0x80, 0xFF]), .array([]), .array([1, "a", .null, 2.5, true]),
            .object([:]), .object(["z": 1, "a": .object(["y": [1, 2], "b": .bytes([9])])]), long,
            .object(["Z": 1, "a": 2, "é": 3, "z": 4]) // nested names are sorted by bytes too
        ]
        for value in values {
            var writer = RecordWriter()
            try writer.write(value, for: "v")
            #expect(try writer.finish() == RecordCodec.encode(["v": value]), "\(value)")
        }
    }

    @Test("a nil value writes no field, through every overload")
    func nilsAreOmitted() throws {
        var writer = RecordWriter()
        writer.write(nil as String?, for: "s")
        writer.write("kept", for: "k")
        writer.write(nil as Double?, for: "d")
        writer.write(nil as Int?, for: "i")
        writer.write(nil as Bool?, for: "b")
        try writer.write(nil as Value?, for: "v")
        #expect(try writer.finish() == RecordCodec.encode(["k": "kept"]))
        // nil is absent, which is not an explicit null.
        var null = RecordWriter()
        try null.write(Value.null, for: "v")
        #expect(try null.finish() == RecordCodec.encode(["v": .null]))
    }

    @Test("a nil field does not count as written: the same name may be written after it")
    func nilThenValue() throws {
        var writer = RecordWriter()
        writer.write(nil as String?, for: "a")
        writer.write("x", for: "a")
        #expect(try writer.finish() == RecordCodec.encode(["a": "x"]))
    }

    // MARK: Random documents

    @Test(
        "random documents written field by field in shuffled order give RecordCodec's bytes",
        arguments: [UInt64(201), 202, 203])
    func randomDocuments(seed: UInt64) throws {
        var generator = ValueGenerator(seed: seed)
        var rng = SeededGenerator(seed: ~seed)
        for _ in 0..<300 {
            let document = generator.document(depth: 3, maxFields: 10)
            let expected = try RecordCodec.encode(document)
            let fields = document.sortedFields.shuffled(using: &rng)
            #expect(try written(fields) == expected, "\(document)")

            var typed = RecordWriter()
            for field in fields { try writeTyped(field.value, for: field.name, into: &typed) }
            let bytes = try typed.finish()
            #expect(bytes == expected, "\(document)")
            #expect(identical(try RecordCodec.decode(bytes), document), "\(document)")
        }
    }

    // MARK: Name order

    @Test("names are ordered by their UTF-8 bytes, not by Swift's String order")
    func byteOrderOfNames() throws {
        // Byte order: "" < "Z" (5A) < "a" (61) < "ab" < "z" (7A) < "Ç" (C3 87) < "é" (C3 A9) < "Å" (E2 84 AB) < "😀" (F0…).
        // Swift's order puts U+212B ANGSTROM SIGN (canonically Å, U+00C5) before "Ç"; bytes put it after "é".
        let byteOrder = ["", "Z", "a", "ab", "z", "\u{C7}", "é", "\u{212B}", "😀"]
        #expect("\u{212B}" < "\u{C7}") // the premise: Swift would order these two the other way
        let expected = nullRecord(byteOrder)
        var rng = SeededGenerator(seed: 7)
        for order in [byteOrder, byteOrder.reversed(), byteOrder.sorted(), byteOrder.shuffled(using: &rng)] {
            #expect(try written(order.map { ($0, .null) }) == expected, "\(order)")
        }
        #expect(
            try RecordCodec.encode(Document(Dictionary(uniqueKeysWithValues: byteOrder.map { ($0, Value.null) })))
                == expected)
    }

    @Test("a name that is a prefix of another sorts first, whichever is written first")
    func prefixNames() throws {
        let expected = nullRecord(["a", "a\0", "ab", "abc"])
        #expect(try written([("abc", .null), ("ab", .null), ("a", .null), ("a\0", .null)]) == expected)
        #expect(try written([("a", .null), ("a\0", .null), ("ab", .null), ("abc", .null)]) == expected)
        #expect(try written([("ab", .null), ("abc", .null), ("a", .null), ("a\0", .null)]) == expected)
    }

    // MARK: Refusals

    @Test("a name written twice is a corrupt error naming it, whether the writes are adjacent or apart")
    func duplicateNames() throws {
        let cases: [[String]] = [
            ["a", "a"], // adjacent, in order
            ["b", "a", "a"], // adjacent, after the order broke
            ["a", "b", "a"], // apart
            ["dup", "c", "b", "dup"], // apart, out of order
            ["x", "y", "z", "x"] // in order until the repeat
        ]
        for names in cases {
            let duplicate = names.first { name in names.filter { $0 == name }.count > 1 }!
            let error = #expect(throws: CodecError.self, "\(names)") { try written(names.map { ($0, .int(1)) }) }
            #expect(error?.code == .corrupt, "\(names)")
            #expect(error?.fieldPath == duplicate, "\(names)")
            #expect(error?.description.contains(duplicate) == true, "\(names)")
        }
        // Through different overloads, and through recordBytes().
        struct Twice: RecordEncodable {
            func encode(to record: inout RecordWriter) throws {
                record.write("text", for: "id")
                record.write(7, for: "other")
                record.write(1.5, for: "id")
            }
        }
        let error = #expect(throws: CodecError.self) { try Twice().recordBytes() }
        #expect(error?.code == .corrupt)
        #expect(error?.fieldPath == "id")
    }

    @Test(
        "canonically equivalent names are one field, as in a Document: written twice they are refused, not stored as two"
    )
    func canonicallyEquivalentNames() throws {
        // "é" as U+00E9 and as e + U+0301: one key of a Document, two different byte strings.
        var document = Document()
        document["\u{E9}"] = 1
        document["e\u{301}"] = 2
        #expect(document.count == 1)
        // RecordCodec.decode refuses a record holding both, so the writer must refuse them too.
        var writer = RecordWriter()
        writer.write(1, for: "\u{E9}")
        writer.write(2, for: "e\u{301}")
        let result: Result<[UInt8], CodecError>
        do { result = .success(try writer.finish()) } catch { result = .failure(error) }
        switch result {
        case .success(let bytes):
            let decoded = Result { try RecordCodec.decode(bytes) }
            Issue.record("the writer made \(hexString(bytes)); RecordCodec.decode says \(decoded)")
        case .failure(let error):
            #expect(error.code == .corrupt)
        }
    }

    @Test("a value nested deeper than the format allows is a tooDeep error naming the field; the limit itself passes")
    func tooDeep() throws {
        func nested(_ levels: Int, object: Bool) -> Value {
            var value: Value = 1
            for _ in 0..<levels { value = object ? .object(["n": value]) : .array([value]) }
            return value
        }
        for object in [false, true] {
            // The record is the first level, so a field may nest maxDepth - 1 levels.
            let deepest = nested(RecordCodec.maxDepth - 1, object: object)
            var fits = RecordWriter()
            try fits.write(deepest, for: "deep")
            #expect(try fits.finish() == RecordCodec.encode(["deep": deepest]))

            var writer = RecordWriter()
            writer.write("before", for: "a")
            let error = #expect(throws: CodecError.self) {
                try writer.write(nested(RecordCodec.maxDepth, object: object), for: "deep")
            }
            #expect(error?.code == .tooDeep)
            // The path of the container one level too deep: the record is level 1, "deep" level 2.
            #expect(
                error?.fieldPath == "deep" + String(repeating: object ? ".n" : "[0]", count: RecordCodec.maxDepth - 1))
            // The refused field left nothing behind: the writer goes on and its record is valid.
            writer.write("after", for: "z")
            #expect(try writer.finish() == RecordCodec.encode(["a": "before", "z": "after"]))
        }
    }

    @Test(
        "random names with repeats and random values either give RecordCodec's bytes or a corrupt error, never a crash",
        arguments: [UInt64(301)])
    func randomRepeats(seed: UInt64) throws {
        var generator = ValueGenerator(seed: seed)
        let pool = ["a", "b", "ab", "Z", "", "é", "😀", "a\0"]
        for _ in 0..<400 {
            let fields = (0..<generator.int(0...6)).map { _ in
                (name: pool[generator.int(0...pool.count - 1)], value: generator.value())
            }
            let names = fields.map(\.name)
            do {
                let bytes = try written(fields)
                #expect(Set(names).count == names.count, "\(names) was accepted with a repeat")
                #expect(
                    try bytes
                        == RecordCodec.encode(
                            Document(Dictionary(uniqueKeysWithValues: fields.map { ($0.name, $0.value) }))))
            } catch let error as CodecError {
                #expect(error.code == .corrupt)
                #expect(Set(names).count < names.count, "\(names) was refused without a repeat: \(error)")
                #expect(
                    names.filter { $0 == error.fieldPath }.count > 1, "\(error) names no repeated field of \(names)")
            }
        }
    }
}

@Suite("RecordEncodable and the record mapping")
struct RecordMappingCoreTests {
    /// Writes and reads itself; `Codable` too, so the Codable path can vouch for the bytes.
    struct Reading: Codable, Equatable, RecordDecodable, RecordEncodable {
        var id: String
        var celsius: Double
        var count: Int
        var ok: Bool
        var label: String?
        var samples: [Double]

        init(id: String, celsius: Double, count: Int, ok: Bool, label: String?, samples: [Double]) {
            (self.id, self.celsius, self.count, self.ok, self.label, self.samples) = (
                id, celsius, count, ok, label, samples
            )
        }

        init(record: borrowing RecordFields) throws {
            id = try record.string("id") ?? ""
            celsius = try record.double("celsius") ?? 0
            count = Int(try record.int("count") ?? 0)
            ok = try record.bool("ok") ?? false
            label = try record.string("label")
            samples = try record.value("samples")?.arrayValue?.compactMap(\.doubleValue) ?? []
        }

        func encode(to record: inout RecordWriter) throws {
            // Not in name order, on purpose.
            record.write(ok, for: "ok")
            record.write(id, for: "id")
            try record.write(.array(samples.map { .double($0) }), for: "samples")
            record.write(label, for: "label")
            record.write(count, for: "count")
            record.write(celsius, for: "celsius")
        }
    }

    private let readings = [
        Reading(id: "r1", celsius: 21.5, count: 3, ok: true, label: "kitchen", samples: [21, 21.5, 22]),
        Reading(id: "r2", celsius: -0.0, count: -129, ok: false, label: nil, samples: []),
        Reading(id: "", celsius: 3.0, count: .max, ok: true, label: "😀", samples: [.infinity])
    ]

    @Test("encode, decode, encodeRecord and decodeRecord of .record(idField:) agree with each other and with Codable")
    func mappingRoundTrip() throws {
        let mapping = ObjectMapping<Reading>.record(idField: "id")
        #expect(mapping.idField == "id")
        let encodeRecord = try #require(mapping.encodeRecord)
        for reading in readings {
            let written = try encodeRecord(reading)
            let bytes = written.bytes
            #expect(written.namesAreASCII)
            #expect(bytes == (try reading.recordBytes()))
            // The same bytes the Codable path stores.
            #expect(try bytes == RecordCodec.encode(try DocumentEncoder().encode(reading)))
            let document = try mapping.encode(reading)
            #expect(identical(document, try RecordCodec.decode(bytes)))
            #expect(document["label"] == (reading.label.map { .string($0) })) // nil wrote no field
            #expect(try mapping.decode(document) == reading)
            #expect(try bytes.withUnsafeBytes { try mapping.decodeRecord($0) } == reading)
        }
    }

    @Test("the other mappings have no record writer: they store through documents")
    func otherMappingsHaveNoWriter() {
        #expect(ObjectMapping<Reading>.codable(idField: "id").encodeRecord == nil)
        #expect(ObjectMapping<Reading>.recordDecodable(idField: "id").encodeRecord == nil)
    }

    @Test("an error the type throws while writing reaches the caller of recordBytes() and of the mapping")
    func ownErrors() {
        struct Refused: Error {}
        struct Picky: RecordEncodable, RecordDecodable {
            init() {}
            init(record: borrowing RecordFields) throws {}
            func encode(to record: inout RecordWriter) throws { throw Refused() }
        }
        #expect(throws: Refused.self) { try Picky().recordBytes() }
        #expect(throws: Refused.self) { try ObjectMapping<Picky>.record(idField: "id").encode(Picky()) }
    }
}
