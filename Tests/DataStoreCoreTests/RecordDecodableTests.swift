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
        let bytes = RecordCodec.encode(try mapping.encode(point))
        #expect(try bytes.withUnsafeBytes { try mapping.decodeRecord($0) } == point)
        // An integer field reads as a double, and absent fields as nil.
        let sparse = RecordCodec.encode(["id": "q", "x": 3])
        #expect(try sparse.withUnsafeBytes { try mapping.decodeRecord($0) } == Point(id: "q", x: 3, n: nil, on: false, raw: nil))
    }

    @Test("a field of the wrong type is a codec error naming it")
    func wrongType() throws {
        let bytes = RecordCodec.encode(["id": "p", "x": "not a number"])
        let error = #expect(throws: CodecError.self) {
            try bytes.withUnsafeBytes { try Point(record: RecordFields($0)) }
        }
        #expect(error?.code == .unsupportedType)
        #expect(error?.description.contains("x") == true)
    }
}
