// The change log's record format, byte for byte as docs/changes.md gives it.
import DataStoreCore
import Testing
@testable import DataStoreKit

@Suite("Change record format")
struct ChangeRecordTests {
    /// docs/changes.md, "Record format": commit 7 at 2023-11-14T22:13:20Z inserted "a" and removed "b" in Note.
    static let vector: [UInt8] = [
        0x01,
        0x00, 0x00, 0x01, 0x8B, 0xCF, 0xE5, 0x68, 0x00,
        0x00, 0x00, 0x00, 0x01,
        0x00, 0x04, 0x4E, 0x6F, 0x74, 0x65,
        0x00, 0x00, 0x00, 0x01, 0x00, 0x04, 0x40, 0x61, 0x00, 0x01,
        0x00, 0x00, 0x00, 0x00,
        0x00, 0x00, 0x00, 0x01, 0x00, 0x04, 0x40, 0x62, 0x00, 0x01
    ]

    static var record: ChangeRecord {
        var change = CollectionChanges(collection: "Note")
        change.inserted = ["a"]
        change.removed = ["b"]
        return ChangeRecord(commit: CommitID(rawValue: 7), milliseconds: 1_700_000_000_000, changes: [change])
    }

    @Test("the documented vector: key, value, and back")
    func vectorRoundTrip() throws {
        #expect(ChangeRecord.key(for: 7) == [0, 0, 0, 0, 0, 0, 0, 7])
        #expect(Self.record.encoded() == Self.vector)
        let decoded = try Self.vector.withUnsafeBytes { try ChangeRecord(commit: 7, bytes: $0) }
        #expect(decoded == Self.record)
        #expect(decoded.event.time.timeIntervalSince1970 == 1_700_000_000)
    }

    @Test("ids of every kind survive the round trip")
    func idKinds() throws {
        var change = CollectionChanges(collection: "ünï")
        change.inserted = [42, -1.5, "", .bytes([0, 1])]
        change.updated = [.string(String(repeating: "x", count: 400))]
        let record = ChangeRecord(commit: CommitID(rawValue: 1 << 40), milliseconds: -5, changes: [change, change])
        let bytes = record.encoded()
        #expect(try bytes.withUnsafeBytes { try ChangeRecord(commit: 1 << 40, bytes: $0) } == record)
    }

    @Test("a batch's reports merge into one entry per collection, in the order first touched, empty ones left out")
    func mergedReports() {
        func changes(_ collection: String, inserted: [Value] = [], removed: [Value] = []) -> CollectionChanges {
            var change = CollectionChanges(collection: collection)
            change.inserted = inserted
            change.removed = removed
            return change
        }
        let results: [any Sendable] = [
            WriteReport(changes: [changes("Note", inserted: ["a"]), changes("Tag")]),
            "a result that reports nothing",
            WriteReport(changes: [changes("Tag", removed: ["t"]), changes("Note", inserted: ["b"], removed: ["c"])]),
            WriteReport(changes: [changes("Note", inserted: ["d"])])
        ]
        #expect(
            ChangeLog.merged(results) == [
                changes("Note", inserted: ["a", "b", "d"], removed: ["c"]), changes("Tag", removed: ["t"])
            ])
        #expect(ChangeLog.merged([WriteReport(changes: [changes("Note")])]).isEmpty)
    }

    @Test("a truncated, extended or newer-format record is a named error, never a crash")
    func malformed() {
        for length in 0..<Self.vector.count {
            let error = #expect(throws: DataStoreError.self) {
                try Array(Self.vector.prefix(length)).withUnsafeBytes { try ChangeRecord(commit: 7, bytes: $0) }
            }
            #expect(error?.message.contains("commit 7") == true)
        }
        #expect(throws: DataStoreError.self) {
            try (Self.vector + [0]).withUnsafeBytes { try ChangeRecord(commit: 7, bytes: $0) }
        }
        let newer = #expect(throws: DataStoreError.self) {
            try ([2] + Self.vector.dropFirst()).withUnsafeBytes { try ChangeRecord(commit: 7, bytes: $0) }
        }
        #expect(newer?.code == .unsupportedFormat)
    }
}
