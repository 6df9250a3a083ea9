// The change log's record format, byte for byte as docs/changes.md gives it.
import DataStoreCore
import Foundation
import DataStoreEngine
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

    @Test("a commit's writes net out: one entry per collection in the order first written, each id once")
    func netWrites() {
        func changes(_ collection: String, inserted: [Value] = [], updated: [Value] = [], removed: [Value] = [])
            -> CollectionChanges
        {
            var change = CollectionChanges(collection: collection)
            (change.inserted, change.updated, change.removed) = (inserted, updated, removed)
            return change
        }
        var first = NetChanges()
        first.note(.inserted, "a", in: "Note")
        first.note(.updated, "x", in: "Note")
        first.note(.removed, "t", in: "Tag")
        var second = NetChanges()
        second.note(.updated, "a", in: "Note") // inserted, then updated: inserted
        second.note(.removed, "x", in: "Note") // updated, then removed: removed
        second.note(.inserted, "b", in: "Note")
        second.note(.removed, "b", in: "Note") // inserted, then removed: not there
        second.note(.inserted, "t", in: "Tag") // removed, then inserted again: updated
        second.note(.inserted, "n", in: "New")
        second.note(.removed, "n", in: "New")
        first.append(second)
        #expect(first.changes == [changes("Note", inserted: ["a"], removed: ["x"]), changes("Tag", updated: ["t"])])
        #expect(NetChanges().changes.isEmpty)
    }

    @Test("a commit id is kept as JSON or text and read back whole; other text is no commit id")
    func commitIDsRoundTrip() throws {
        let commit = CommitID(rawValue: 812)
        let json = try JSONEncoder().encode(["position": commit])
        #expect(String(decoding: json, as: UTF8.self) == #"{"position":812}"#)
        #expect(try JSONDecoder().decode([String: CommitID].self, from: json)["position"] == commit)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode([CommitID].self, from: Data("[-1]".utf8)) }
        #expect(CommitID(commit.description) == commit)
        #expect(CommitID("812") == commit)
        for text in ["", "commit", "commit -1", "-3", "8.5", "commit  812", " 812", "0x10", "812 "] {
            #expect(CommitID(text) == nil, "\(text)")
        }
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
