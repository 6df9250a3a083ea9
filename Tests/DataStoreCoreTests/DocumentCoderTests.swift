import TestSupport
import DataStoreCore
import Foundation
import Testing

struct Attachment: Codable, Equatable {
    var owner: String
    var size: UInt32
    var checksum: Data
}

struct Envelope: Codable, Equatable {
    enum Kind: String, Codable { case text, image }
    var id: String
    var kind: Kind
    var sent: Date
    var ratio: Double
    var count: Int
    var small: Int8
    var flag: Bool
    var note: String?
    var missing: Int?
    var tags: [String]
    var matrix: [[Int]]
    var attachments: [Attachment]
    var lookup: [String: Int]
    var raw: [UInt8]
    var float: Float
}

@Suite("DocumentEncoder, DocumentDecoder and RecordDecoder")
struct DocumentCoderTests {
    static let envelope = Envelope(
        id: "e1", kind: .image, sent: Date(timeIntervalSince1970: 1_437_108_600.5), ratio: 0.25, count: -3, small: 7,
        flag: true, note: "hi", missing: nil, tags: ["a", "b"], matrix: [[1, 2], [], [3]],
        attachments: [Attachment(owner: "o", size: 10, checksum: Data([1, 2, 3]))], lookup: ["x": 1], raw: [0, 255],
        float: 1.5)

    @Test("Codable round trip through Document, record bytes and RecordDecoder")
    func roundTrip() throws {
        let document = try DocumentEncoder().encode(Self.envelope)
        #expect(document["sent"] == .double(1_437_108_600.5))
        #expect(document["kind"] == "image")
        #expect(document["missing"] == nil) // nil optionals are left out
        #expect(document["attachments"] == [["owner": "o", "size": 10, "checksum": .bytes([1, 2, 3])]])
        #expect(document["raw"] == .bytes([0, 255]))
        #expect(try DocumentDecoder().decode(Envelope.self, from: document) == Self.envelope)
        let bytes = try RecordCodec.encode(document)
        #expect(try RecordDecoder().decode(Envelope.self, from: bytes) == Self.envelope)
    }

    @Test("optionals decode from an absent field or an explicit null")
    func optionals() throws {
        var document = try DocumentEncoder().encode(Self.envelope)
        document["note"] = .null
        #expect(try DocumentDecoder().decode(Envelope.self, from: document).note == nil)
        #expect(try RecordDecoder().decode(Envelope.self, from: try RecordCodec.encode(document)).note == nil)
    }

    @Test("numbers convert by value: 3.0 decodes as Int, ints as Double; 3.5 does not fit Int")
    func numbers() throws {
        struct Numbers: Codable {
            var i: Int
            var d: Double
        }
        let document: Document = ["i": 3.0, "d": 2]
        let decoded = try DocumentDecoder().decode(Numbers.self, from: document)
        #expect(decoded.i == 3 && decoded.d == 2)
        #expect(throws: DecodingError.self) { try DocumentDecoder().decode(Numbers.self, from: ["i": 3.5, "d": 1]) }
        #expect(throws: DecodingError.self) {
            try RecordDecoder().decode(Numbers.self, from: try RecordCodec.encode(["i": 300, "d": "x"]))
        }
    }

    @Test("decoding errors carry the coding path")
    func errorPaths() throws {
        var document = try DocumentEncoder().encode(Self.envelope)
        document["attachments"] = [["owner": 5, "size": 1, "checksum": .bytes([])]]
        for decode in [
            { try DocumentDecoder().decode(Envelope.self, from: document) },
            { try RecordDecoder().decode(Envelope.self, from: try RecordCodec.encode(document)) }
        ] {
            #expect {
                _ = try decode()
            } throws: { error in
                guard case DecodingError.typeMismatch(_, let context) = error else { return false }
                return context.codingPath.map(\.stringValue) == ["attachments", "Index 0", "owner"]
            }
        }
        document["id"] = nil
        #expect {
            _ = try RecordDecoder().decode(Envelope.self, from: try RecordCodec.encode(document))
        } throws: { error in
            guard case DecodingError.keyNotFound(let key, _) = error else { return false }
            return key.stringValue == "id"
        }
    }

    @Test("damaged record bytes throw DecodingError wrapping CodecError, never crash")
    func damagedBytes() throws {
        let bytes = try RecordCodec.encode(try DocumentEncoder().encode(Self.envelope))
        var generator = SeededGenerator(seed: 91)
        for length in 0..<bytes.count {
            #expect(throws: (any Error).self) {
                try RecordDecoder().decode(Envelope.self, from: Array(bytes[..<length]))
            }
        }
        for index in bytes.indices {
            var damaged = bytes
            damaged[index] ^= UInt8(truncatingIfNeeded: generator.next() | 1)
            _ = try? RecordDecoder().decode(Envelope.self, from: damaged)
        }
    }

    @Test("a top-level value that is not an object cannot be a document")
    func topLevel() throws {
        #expect(throws: EncodingError.self) { try DocumentEncoder().encode([1, 2]) }
        #expect(try DocumentEncoder().encodeValue([1, 2]) == [1, 2])
        #expect(try DocumentDecoder().decodeValue([Int].self, from: [1, 2]) == [1, 2])
        #expect(throws: EncodingError.self) { try DocumentEncoder().encode(["n": UInt64.max]) }
    }
}
