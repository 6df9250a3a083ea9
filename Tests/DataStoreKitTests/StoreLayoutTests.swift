import DataStoreCore
import Testing
@testable import DataStoreKit
@testable import LMDB

/// The vectors of docs/encoding.md, "Store layout", copied verbatim.
@Suite("Store layout vectors")
struct StoreLayoutTests {
    static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02X", $0) }.joined(separator: " ") }

    @Test("record keys")
    func recordKeys() throws {
        #expect(Self.hex(try StorageKeys.idKey("n1", collection: "c")) == "40 6E 31 00 01")
        #expect(Self.hex(try StorageKeys.idKey(10, collection: "c")) == "30 C0 24 00 00 00 00 00 00 00")
        #expect(Self.hex(try StorageKeys.idKey(.double(10), collection: "c")) == "30 C0 24 00 00 00 00 00 00 00")
    }

    @Test("record value: version, then the record")
    func recordValue() throws {
        var record: [UInt8] = []
        RecordVersion.append(7, to: &record)
        record += try RecordCodec.encode(["id": "n1"])
        #expect(Self.hex(Array(record.prefix(8))) == "00 00 00 00 00 00 00 07")
        #expect(try Array(record.dropFirst(8)) == RecordCodec.encode(["id": "n1"]))
    }

    @Test("a record's version is read back, and one beyond Int or a record too short is a codec error")
    func recordVersionRead() throws {
        var record: [UInt8] = []
        RecordVersion.append(Int.max, to: &record)
        #expect(try record.withUnsafeBytes { try RecordVersion.read($0) } == Int.max)
        for damaged in [[0x80, 0, 0, 0, 0, 0, 0, 0], [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF], [0, 0, 7]]
            as [[UInt8]]
        {
            #expect(throws: DataStoreError.self, "\(damaged)") {
                try damaged.withUnsafeBytes { try RecordVersion.read($0) }
            }
        }
    }

    @Test("index keys: components, record key, its length")
    func indexKeys() throws {
        let idKey = try StorageKeys.idKey("n1", collection: "c")
        let single = IndexTable(
            definition: IndexDefinition("created_ts"), database: Database(handle: 1, name: "x", options: []),
            state: .ready)
        let entries = try single.entries(for: ["id": "n1", "created_ts": 1.5], idKey: idKey, collection: "c")
        #expect(entries.map { Self.hex($0.key) } == ["30 BF F8 00 00 00 00 00 00 00 40 6E 31 00 01 05"])

        let missing = try single.entries(for: ["id": "n1"], idKey: idKey, collection: "c")
        #expect(missing.map { Self.hex($0.key) } == ["05 40 6E 31 00 01 05"])

        let compound = IndexTable(
            definition: IndexDefinition("pair", fields: ["from", .descending("to")]),
            database: Database(handle: 2, name: "x", options: []), state: .ready)
        let pair = try compound.entries(for: ["id": "n1", "from": "a"], idKey: idKey, collection: "c")
        #expect(pair.map { Self.hex($0.key) } == ["40 61 00 01 FA 40 6E 31 00 01 05"])

        let tags = IndexTable(
            definition: IndexDefinition("tags", multiValue: true),
            database: Database(handle: 3, name: "x", options: []), state: .ready)
        let elements = try tags.entries(for: ["id": "n1", "tags": ["b", "a", "b"]], idKey: idKey, collection: "c")
        #expect(elements.map { Self.hex($0.key) } == ["40 62 00 01 40 6E 31 00 01 05", "40 61 00 01 40 6E 31 00 01 05"])
    }
}
