import DataStoreCore
public import DataStoreEngine
import LMDB

extension DataStore {
    /// The `_meta` key of the consumer `name`'s saved position.
    static func feedPositionKey(_ name: String) -> [UInt8] { Array("feed-position/\(name)".utf8) }

    /// A position as `_meta` stores it: the commit's number, 8 bytes big-endian.
    static func encodedPosition(_ commit: CommitID) -> [UInt8] {
        withUnsafeBytes(of: UInt64(commit.rawValue).bigEndian) { Array($0) }
    }

    /// The consumer `consumer`'s saved position (``/DataStoreEngine/DocumentStore/feedPosition(of:)``).
    public func feedPosition(of consumer: String) throws -> CommitID? {
        try FeedConsumerName.check(consumer)
        let key = Self.feedPositionKey(consumer)
        return try environment.read { transaction in
            try transaction.withValue(forKey: key, in: meta) { bytes -> CommitID in
                guard bytes.count == 8 else {
                    throw DataStoreError(
                        .codec, "the saved feed position of \(consumer) is \(bytes.count) bytes, not 8")
                }
                return CommitID(rawValue: Int(UInt64(bigEndian: bytes.loadUnaligned(as: UInt64.self))))
            }
        }
    }

    /// Saves the consumer `consumer`'s position in a commit of its own
    /// (``/DataStoreEngine/DocumentStore/saveFeedPosition(_:of:)``).
    public func saveFeedPosition(_ commit: CommitID, of consumer: String) async throws {
        try FeedConsumerName.check(consumer)
        let (key, value, meta) = (Self.feedPositionKey(consumer), Self.encodedPosition(commit), self.meta)
        _ = try await writer.submit(estimatedBytes: 64, mayCommitOnCaller: true) { transaction in
            try transaction.put(value, forKey: key, in: meta)
        }
    }
}
