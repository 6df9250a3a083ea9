import DataStoreCore
import Foundation
import DataStoreEngine

/// One commit's entry in the change log, in the byte format of docs/changes.md ("Record format").
///
/// The key is the commit id as 8 big-endian bytes, so the log sorts in commit order; the value is
/// a format byte, the commit time, then per collection the ids inserted, updated and removed.
struct ChangeRecord: Sendable, Hashable {
    /// The only record format so far.
    static let formatVersion: UInt8 = 1
    /// The key of the log's one bookkeeping entry: the newest commit trimmed away (0 is no commit).
    static let trimmedThroughKey = key(for: 0)

    var commit: CommitID
    /// Milliseconds since 1970-01-01 UTC, when the writer committed.
    var milliseconds: Int64
    var changes: [CollectionChanges]

    /// The event users see.
    var event: CommitEvent {
        CommitEvent(
            commit: commit, time: Date(timeIntervalSince1970: Double(milliseconds) / 1_000), changes: changes)
    }

    static func key(for commit: Int) -> [UInt8] {
        withUnsafeBytes(of: UInt64(commit).bigEndian) { Array($0) }
    }

    static func commit(ofKey key: UnsafeRawBufferPointer) throws(DataStoreError) -> Int {
        guard key.count == 8 else {
            throw DataStoreError(.codec, "a change log key of \(key.count) bytes (8 expected)")
        }
        return Int(key.reduce(UInt64(0)) { $0 << 8 | UInt64($1) })
    }

    /// The value bytes.
    func encoded() -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(
            13
                + changes.reduce(0) { total, change in
                    total + 2 + change.collection.utf8.count + Self.estimatedBytes(of: change.inserted)
                        + Self.estimatedBytes(of: change.updated) + Self.estimatedBytes(of: change.removed)
                })
        bytes.append(Self.formatVersion)
        Self.appendInteger(UInt64(bitPattern: milliseconds), byteCount: 8, to: &bytes)
        Self.appendInteger(UInt64(changes.count), byteCount: 4, to: &bytes)
        for change in changes {
            Self.appendInteger(UInt64(change.collection.utf8.count), byteCount: 2, to: &bytes)
            bytes.append(contentsOf: change.collection.utf8)
            Self.append(change.inserted, to: &bytes)
            Self.append(change.updated, to: &bytes)
            Self.append(change.removed, to: &bytes)
        }
        return bytes
    }

    /// One list of ids: its count, then each id's length and key encoding.
    private static func append(_ ids: [Value], to bytes: inout [UInt8]) {
        appendInteger(UInt64(ids.count), byteCount: 4, to: &bytes)
        for id in ids {
            // The length goes in front once the id is written in place.
            let start = bytes.count
            bytes.append(0)
            bytes.append(0)
            KeyCodec.append(id, to: &bytes)
            let length = bytes.count - start - 2
            bytes[start] = UInt8(truncatingIfNeeded: length >> 8)
            bytes[start + 1] = UInt8(truncatingIfNeeded: length)
        }
    }

    /// About the bytes `ids` take encoded, so that the record is allocated once.
    private static func estimatedBytes(of ids: [Value]) -> Int {
        ids.reduce(4) { total, id in
            if case .string(let text) = id { return total + 4 + text.utf8.count }
            return total + 12
        }
    }

    /// Reads a record stored under `commit`.
    /// - Throws: ``/DataStoreCore/DataStoreError/Code/codec`` naming the commit and what is wrong with the bytes.
    init(commit: Int, bytes: UnsafeRawBufferPointer) throws(DataStoreError) {
        var reader = ChangeRecordReader(bytes: bytes, commit: commit)
        let format = try reader.integer(byteCount: 1, "the format byte")
        guard format == UInt64(Self.formatVersion) else {
            throw DataStoreError(
                .unsupportedFormat, "the change log entry of commit \(commit) has format \(format) (1 expected)")
        }
        self.commit = CommitID(rawValue: commit)
        self.milliseconds = Int64(bitPattern: try reader.integer(byteCount: 8, "the commit time"))
        let count = try reader.integer(byteCount: 4, "the collection count")
        var changes: [CollectionChanges] = []
        for _ in 0..<count {
            var change = CollectionChanges(collection: try reader.string())
            change.inserted = try reader.ids()
            change.updated = try reader.ids()
            change.removed = try reader.ids()
            changes.append(change)
        }
        try reader.expectEnd()
        self.changes = changes
    }

    init(commit: CommitID, milliseconds: Int64, changes: [CollectionChanges]) {
        self.commit = commit
        self.milliseconds = milliseconds
        self.changes = changes
    }

    private static func appendInteger(_ value: UInt64, byteCount: Int, to bytes: inout [UInt8]) {
        for shift in stride(from: (byteCount - 1) * 8, through: 0, by: -8) {
            bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift)))
        }
    }
}
