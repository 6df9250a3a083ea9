import TestSupport
import Testing
@testable import DataStoreCore

@Suite("RecordDecodable")
struct RecordDecodableTests {
    struct Point: Codable, Equatable, RecordDecodable {
        var id: String
        var x: Double
        var n: Int64?
        var on: Bool
        var raw: [UInt8]?

        init(id: String, x: Double, n: Int64?, on: Bool, raw: [UInt8]?) {
            (self.id, self.x, self.n, self.on, self.raw) = (id, x, n, on, raw)
        }

        init(record: borrowing RecordFields) throws {
            id = try record.string("id") ?? ""
            x = try record.double("x") ?? 0
            n = try record.int("n")
            on = try record.bool("on") ?? false
            raw = try record.bytes("raw")
        }
    }

    @Test("reads each field of a record by name, as the Codable mapping does")
    func readsFields() throws {
        let mapping = ObjectMapping<Point>.recordDecodable(idField: "id")
        let point = Point(id: "p", x: 1.5, n: 7, on: true, raw: [0, 255])
        let bytes = try RecordCodec.encode(try mapping.encode(point))
        #expect(try bytes.withUnsafeBytes { try mapping.decodeRecord($0) } == point)
        // An integer field reads as a double, and absent fields as nil.
        let sparse = try RecordCodec.encode(["id": "q", "x": 3])
        #expect(
            try sparse.withUnsafeBytes { try mapping.decodeRecord($0) }
                == Point(id: "q", x: 3, n: nil, on: false, raw: nil))
    }

    @Test("a field of the wrong type is a codec error naming it")
    func wrongType() throws {
        let bytes = try RecordCodec.encode(["id": "p", "x": "not a number"])
        let error = #expect(throws: CodecError.self) {
            try bytes.withUnsafeBytes { try Point(record: RecordFields($0)) }
        }
        #expect(error?.code == .unsupportedType)
        #expect(error?.description.contains("x") == true)
    }
}

@Suite("RecordFields")
struct RecordFieldsTests {
    /// What the general path (``RecordCodec/field(_:in:)``) says a typed accessor should return.
    private enum Answer: Equatable {
        case value(Value?)
        case error(CodecError.Code)
    }

    private func answers(_ bytes: [UInt8], _ name: String) -> [Answer] {
        func run<T>(_ read: (borrowing RecordFields) throws(CodecError) -> T?, _ wrap: (T) -> Value) -> Answer {
            bytes.withUnsafeBytes { buffer in
                do throws(CodecError) {
                    return .value(try read(RecordFields(unsafeBytes: buffer)).map(wrap))
                } catch {
                    return .error(error.code)
                }
            }
        }
        return [
            run({ fields throws(CodecError) in try fields.string(name) }, { .string($0) }),
            run({ fields throws(CodecError) in try fields.double(name) }, { .double($0) }),
            run({ fields throws(CodecError) in try fields.int(name) }, { .int($0) }),
            run({ fields throws(CodecError) in try fields.bool(name) }, { .bool($0) }),
            run({ fields throws(CodecError) in try fields.bytes(name) }, { .bytes($0) })
        ]
    }

    /// The answers the accessors' documented rules give for `value` (a field of a valid record).
    private func expected(_ value: Value?) -> [Answer] {
        let mismatch = Answer.error(.unsupportedType)
        guard let value, !value.isNull else { return Array(repeating: .value(nil), count: 5) }
        return [
            value.stringValue.map { .value(.string($0)) } ?? mismatch,
            value.isNumber ? .value(value.doubleValue.map { .double($0) }) : mismatch,
            value.intValue.map { .value(.int($0)) } ?? mismatch,
            value.boolValue.map { .value(.bool($0)) } ?? mismatch,
            value.bytesValue.map { .value(.bytes($0)) } ?? mismatch
        ]
    }

    @Test(
        "every accessor agrees with the record's decoded value, for present and absent fields",
        arguments: [UInt64(101), 102])
    func agreesWithDecode(seed: UInt64) throws {
        var generator = ValueGenerator(seed: seed)
        for _ in 0..<300 {
            let document = generator.document(depth: 2, maxFields: 8)
            let bytes = try RecordCodec.encode(document)
            for name in document.map(\.key) + ["absent", "", "\u{10FFFF}"] {
                let got = answers(bytes, name), want = expected(document[name])
                for (a, b) in zip(got, want) {
                    switch (a, b) {
                    case (.value(let x?), .value(let y?)): #expect(identical(x, y) || x == y, "\(name) in \(document)")
                    default: #expect(a == b, "\(name) in \(document)")
                    }
                }
            }
        }
    }

    @Test("records with more fields than the inline index holds, and long names, read every field")
    func beyondTheIndex() throws {
        var document = Document()
        let long = String(repeating: "n", count: 300)
        for number in 0..<40 { document["f\(number)"] = .int(Int64(number)) }
        document[long] = "long"
        document["a" + long] = .double(2.5)
        let bytes = try RecordCodec.encode(document)
        try bytes.withUnsafeBytes { buffer throws in
            let fields = RecordFields(unsafeBytes: buffer)
            for number in (0..<40).reversed() { #expect(try fields.int("f\(number)") == Int64(number)) }
            #expect(try fields.string(long) == "long")
            #expect(try fields.double("a" + long) == 2.5)
            #expect(try fields.int("f40") == nil)
        }
        // RecordDecoder's keyed container on such a record (a dictionary reads every key).
        var numbers = Document()
        for number in 0..<40 { numbers["f\(number)"] = .int(Int64(number)) }
        numbers[long] = .double(0.5)
        let decoded = try RecordDecoder().decode([String: Double].self, from: try RecordCodec.encode(numbers))
        #expect(decoded.count == 41 && decoded["f17"] == 17 && decoded["f39"] == 39 && decoded[long] == 0.5)
    }

    @Test("truncated and damaged records throw CodecError or answer, never crash", arguments: [UInt64(111)])
    func damaged(seed: UInt64) throws {
        var generator = ValueGenerator(seed: seed)
        var rng = SeededGenerator(seed: seed)
        for _ in 0..<150 {
            let document = generator.document(depth: 2, maxFields: 5)
            let bytes = try RecordCodec.encode(document)
            let names = document.map(\.key) + ["a"]
            for length in 0..<bytes.count {
                for name in names { _ = answers(Array(bytes[..<length]), name) }
            }
            for _ in 0..<20 where !bytes.isEmpty {
                var damaged = bytes
                damaged[Int.random(in: 0..<damaged.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng)
                for name in names { _ = answers(damaged, name) }
            }
        }
    }
}
