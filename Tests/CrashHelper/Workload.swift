import DataStoreCore
import TestSupport
public import DataStoreKit

/// The documents the crash helper writes: each change set is a *group* of `of` documents sharing
/// one `tag`, so a reader can tell a whole change set from part of one.
///
/// Shared with `ReliabilityTests`, which verifies what the helper acknowledged.
public struct CrashItem: Codable, Sendable, Equatable {
    /// `<tag>.<index>`.
    public var id: String
    /// `<pid>-<worker>-<n>`: one per change set.
    public var tag: String
    /// The number of documents in the change set.
    public var of: Int
    /// This document's place in the change set, `0..<of`.
    public var index: Int
    /// The tag of an earlier group this change set removed, if any.
    public var removes: String?
    /// Deterministic text (see ``CrashWorkload/payload(tag:index:)``), sometimes longer than an
    /// index key may be, so the cut-key path is exercised too.
    public var payload: String
    /// Elements of a multi-value index.
    public var labels: [String]

    public init(tag: String, of count: Int, index: Int, removes: String?) {
        self.id = "\(tag).\(index)"
        self.tag = tag
        self.of = count
        self.index = index
        self.removes = removes
        self.payload = CrashWorkload.payload(tag: tag, index: index)
        self.labels = ["w\(index % 3)", "g\(count)"]
    }
}

/// The store layout and the text protocol between the helper and the tests.
public enum CrashWorkload {
    /// The collection every mode writes.
    public static let collectionName = "items"

    /// The indexes of the collection: plain, cut-prone, multi-value, and a unique compound one.
    public static let indexes: [IndexDefinition] = [
        IndexDefinition("tag"),
        IndexDefinition("payload"),
        IndexDefinition("labels", multiValue: true),
        IndexDefinition("tag_index", fields: ["tag", .descending("index")], unique: true)
    ]

    /// Opens (or creates) the collection.
    public static func collection(in store: DataStore) async throws -> StoreCollection<CrashItem> {
        try await store.collection(CrashItem.self, name: collectionName, idField: "id", indexes: indexes)
    }

    /// How many documents change set `n` holds: 3 to 5.
    public static func groupSize(_ n: Int) -> Int { 3 + n % 3 }

    /// Whether change set `n` of a worker also removes the worker's previous group (`n - 1`).
    /// Only groups with `n % 3 == 1` are ever removed, and only by the very next change set, so a
    /// group is removed at most once and a remover is never itself removed.
    public static func removesPrevious(_ n: Int) -> Bool { n % 3 == 2 }

    /// The text stored in document `index` of group `tag`: 0 to 1,199 bytes, derived from both.
    public static func payload(tag: String, index: Int) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in tag.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        hash = (hash ^ UInt64(index)) &* 0x100_0000_01b3
        let length = Int(hash % 1_200)
        let stem = "\(tag)/\(index)/"
        return String(String(repeating: stem, count: length / stem.count + 1).prefix(length))
    }

    /// The line the helper prints once a change set is acknowledged.
    public static func ackLine(tag: String, count: Int, removes: String?) -> String {
        "ACK \(tag) \(count) \(removes ?? "-")"
    }
}

/// One acknowledged change set, parsed from an `ACK` line.
public struct Acknowledgement: Sendable, Hashable {
    public var tag: String
    public var count: Int
    public var removes: String?

    /// Parses `ACK <tag> <count> <removes or ->`; `nil` for any other line (or a torn one).
    public init?(line: some StringProtocol) {
        let words = line.split(separator: " ")
        guard words.count == 4, words[0] == "ACK", let count = Int(words[2]) else { return nil }
        tag = String(words[1])
        self.count = count
        removes = words[3] == "-" ? nil : String(words[3])
    }
}
