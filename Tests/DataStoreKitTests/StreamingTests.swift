// Lazy reads: a cursor inside a read closure, an AsyncSequence that pages, and keyset pages,
// each checked against the eager query on the same data, with bounded memory counted.
import DataStoreCore
@testable import DataStoreKit
import Foundation
import Synchronization
import Testing

@Suite("Streaming and keyset pages")
struct StreamingTests {
    /// A store of 240 documents under several kinds of index: single, compound with a descending
    /// field, multi-value, and long strings whose keys are cut.
    static func fixture() async throws -> (TemporaryStore, StoreCollection<Document>) {
        let temporary = try TemporaryStore()
        let collection = try await temporary.store.collection(
            "Item", mapping: .documents(idField: "id"),
            indexes: [
                IndexDefinition("ts"),
                IndexDefinition("pair", fields: ["group", .descending("ts")]),
                IndexDefinition("tags", multiValue: true),
                IndexDefinition("label")
            ])
        let long = String(repeating: "x", count: 600)
        var documents: [Document] = []
        for number in 0..<240 {
            var document: Document = [
                "id": .int(Int64(number)), "ts": .int(Int64((number * 37) % 60)), "group": .string("g\(number % 4)"),
                "tags": .array([.string("t\(number % 3)"), .string("t\(number % 5)"), .string("all")]),
                "label": .string((number % 8 == 0 ? long : "x") + "\((number * 7) % 11)")
            ]
            if number % 9 == 0 { document["ts"] = nil } // missing: sorts first
            documents.append(document)
        }
        try await collection.put(contentsOf: documents)
        return (temporary, collection)
    }

    static let queries: [(params: [String: Value], options: [String: Value])] = [
        ([:], [:]),
        (["ts >=": 10, "ts <": 40], [:]),
        (["ts >=": 10], ["sort": "ts"]),
        (["ts <": 50], ["sort": "-ts"]),
        ([:], ["sort": "ts"]),
        (["group": "g1"], ["sort": "-ts"]),
        (["group": "g2"], ["sort": "ts"]),
        (["group in": ["g0", "g3"]], [:]),
        (["tags": "t1"], [:]),
        (["tags in": ["t0", "t4", "all"]], [:]),
        (["label >=": .string(String(repeating: "x", count: 600) + "3")], ["sort": "label"]),
        (["label ^=": "xx"], ["sort": "-label"]),
        (["id >": 100], ["sort": "-id"]),
        (["id in": [5, 7, 9, 300]], ["sort": "-ts"]),
        (["group !=": "g0", "ts exists": true], [:])
    ]

    @Test("cursors, streams and pages give exactly what query gives, at every batch size")
    func sameAnswers() async throws {
        let (temporary, collection) = try await Self.fixture()
        defer { temporary.remove() }
        for (params, options) in Self.queries {
            let expected = try collection.query(Query(params: params, options: options)).map { $0["id"]! }
            for size in [1, 5, 1_000] {
                let read = try collection.read(batchSize: size) { snapshot in
                    Array(try snapshot.query(params: params, options: options)).map { $0["id"]! }
                }
                #expect(read == expected, "read \(params) \(options) batch \(size)")
                var streamed: [Value] = []
                for try await document in try collection.stream(params: params, options: options, pageSize: size) {
                    streamed.append(document["id"]!)
                }
                #expect(streamed == expected, "stream \(params) \(options) page \(size)")
                var paged: [Value] = []
                var token: PageToken?
                repeat {
                    let page = try await collection.page(params: params, options: options, size: size, after: token)
                    paged += page.objects.map { $0["id"]! }
                    token = try page.next.map { try PageToken($0.description) } // through its text
                } while token != nil
                #expect(paged == expected, "pages \(params) \(options) size \(size)")
            }
        }
    }

    @Test("limit and offset apply to cursors and streams; pages refuse them")
    func windows() async throws {
        let (temporary, collection) = try await Self.fixture()
        defer { temporary.remove() }
        let options: [String: Value] = ["sort": "-ts", "limit": 25, "offset": 30]
        let expected = try collection.query(Query(params: ["ts >": 3], options: options)).map { $0["id"]! }
        #expect(expected.count == 25)
        let read = try collection.read(batchSize: 7) { snapshot in
            Array(try snapshot.query(params: ["ts >": 3], options: options)).map { $0["id"]! }
        }
        #expect(read == expected)
        var streamed: [Value] = []
        for try await document in try collection.stream(params: ["ts >": 3], options: options, pageSize: 4) {
            streamed.append(document["id"]!)
        }
        #expect(streamed == expected)
        await #expect(throws: DataStoreError.self) {
            try await collection.page(params: nil, options: ["limit": 3], size: 5)
        }
        await #expect(throws: DataStoreError.self) {
            try await collection.page(params: nil, options: ["offset": 3], size: 5)
        }
        await #expect(throws: DataStoreError.self) { try await collection.page(params: nil, size: 0) }
    }

    @Test("a sort no index serves is refused with a typed error naming it")
    func unservedSort() async throws {
        let (temporary, collection) = try await Self.fixture()
        defer { temporary.remove() }
        let error = try #require(throws: DataStoreError.self) {
            try collection.stream(params: ["ts >": 3], options: ["sort": ["group", "ts"]])
        }
        #expect(error.code == .invalidOption && error.message.contains("group asc, ts asc"), "\(error)")
        await #expect(throws: DataStoreError.self) {
            try await collection.page(params: nil, options: ["sort": ["group", "ts"]], size: 3)
        }
    }

    @Test("a token from another query, a damaged token and text that is not a token are refused")
    func badTokens() async throws {
        let (temporary, collection) = try await Self.fixture()
        defer { temporary.remove() }
        let first = try await collection.page(params: ["ts >=": 10], options: ["sort": "ts"], size: 5)
        let token = try #require(first.next)
        for (params, options) in [(["ts >=": 11], ["sort": "ts"]), (["ts >=": 10], ["sort": "-ts"])]
            as [([String: Value], [String: Value])]
        {
            let error = try await #require(throws: DataStoreError.self) {
                try await collection.page(params: params, options: options, size: 5, after: token)
            }
            #expect(error.code == .invalidPageToken && error.message.contains("another query"), "\(error)")
        }
        var damaged = token.bytes
        damaged.removeLast(3)
        let error = try await #require(throws: DataStoreError.self) {
            try await collection.page(
                params: ["ts >=": 10], options: ["sort": "ts"], size: 5, after: PageToken(bytes: damaged))
        }
        #expect(error.code == .invalidPageToken, "\(error)")
        #expect(throws: DataStoreError.self) { try PageToken("not a token!") }
        await #expect(throws: DataStoreError.self) {
            try await collection.page(params: nil, size: 5, after: PageToken(bytes: [9, 9, 9]))
        }
    }

    @Test("pages resume after their last result whatever is written between them")
    func stableUnderWrites() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let collection = try await temporary.store.collection(
            "Event", mapping: .documents(idField: "id"), indexes: [IndexDefinition("ts")])
        try await collection.put(contentsOf: (0..<50).map { ["id": .int(Int64($0)), "ts": .int(Int64($0 * 10))] })
        let first = try await collection.page(params: nil, options: ["sort": "ts"], size: 20)
        #expect(first.objects.map { $0["ts"]! } == (0..<20).map { .int(Int64($0 * 10)) })
        // Before the boundary: an insert and a removal must not shift the next page.
        _ = try await collection.add(object: ["id": 100, "ts": 5])
        _ = try await collection.remove(id: 3)
        // After it: an insert is met in its place.
        _ = try await collection.add(object: ["id": 101, "ts": 255])
        let second = try await collection.page(params: nil, options: ["sort": "ts"], size: 20, after: first.next)
        let expected: [Value] = [200, 210, 220, 230, 240, 250, 255] + (26..<39).map { .int(Int64($0 * 10)) }
        #expect(second.objects.map { $0["ts"]! } == expected)
    }

    @Test("a cursor holds one batch: live objects stay within the batch size however many are read")
    func boundedMemory() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let collection = try await temporary.store.collection(
            Tracked.self, idField: "id", indexes: [IndexDefinition("n")])
        let total = 20_000
        for chunk in stride(from: 0, to: total, by: 5_000) {
            try await collection.add(contentsOf: (chunk..<chunk + 5_000).map { Tracked(id: $0, n: $0 % 1_000) })
        }
        Tracked.resetPeak()
        let (seen, peakBuffered) = try collection.read(batchSize: 100) { snapshot in
            let cursor = try snapshot.query(params: ["n >=": 0])
            var seen = 0
            while let object = try cursor.next() { seen += object.n >= 0 ? 1 : 0 }
            return (seen, cursor.peakBuffered)
        }
        #expect(seen == total)
        #expect(peakBuffered == 100)
        #expect(Tracked.peak.load(ordering: .relaxed) <= 101)
        Tracked.resetPeak()
        var streamed = 0
        for try await object in try collection.stream(params: nil, pageSize: 250) { streamed += object.id >= 0 ? 1 : 0 }
        #expect(streamed == total)
        #expect(Tracked.peak.load(ordering: .relaxed) <= 251)
    }

    @Test("a snapshot yields between batches when asked, and the read throws snapshotExpired")
    func yieldsWhenAsked() async throws {
        var options = DataStore.Options()
        // Long enough that the first batch is read before the age passes, even on a loaded machine
        // (the writer's idle loop also ends expired snapshots, between batches or before the first).
        options.maxSnapshotAge = .milliseconds(300)
        let temporary = try TemporaryStore(options: options)
        defer { temporary.remove() }
        let collection = try await temporary.store.collection("Item", mapping: .documents(idField: "id"))
        try await collection.put(contentsOf: (0..<10).map { ["id": .int(Int64($0))] as Document })
        var read = 0
        let error = try #require(throws: DataStoreError.self) {
            try collection.read(batchSize: 4) { snapshot in
                for _ in try snapshot.documents(params: nil) {
                    read += 1
                    if read == 2 {
                        Thread.sleep(forTimeInterval: 0.35)
                        _ = temporary.store.environment.yieldExpiredReaders()
                    }
                }
            }
        }
        #expect(error.code == .snapshotExpired && error.message.contains("maxSnapshotAge"), "\(error)")
        #expect(read == 4)
    }

    @Test("a cursor used after its read closure returned throws closed")
    func cursorOutsideItsRead() async throws {
        let (temporary, collection) = try await Self.fixture()
        defer { temporary.remove() }
        let cursor = try collection.read(batchSize: 2) { try $0.documents(params: nil) }
        let error = try #require(throws: DataStoreError.self) { try cursor.next() }
        #expect(error.code == .closed, "\(error)")
        #expect(try collection.read { try $0.count(params: ["tags": "all"]) } == 240)
    }
}

/// An object that counts how many of it are alive, and the most at once.
final class Tracked: Codable, Sendable {
    static let live = Atomic<Int>(0)
    static let peak = Atomic<Int>(0)

    let id: Int
    let n: Int

    init(id: Int, n: Int) {
        self.id = id
        self.n = n
        Self.born()
    }

    required init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(Int.self, forKey: .id)
        n = try container.decode(Int.self, forKey: .n)
        Self.born()
    }

    deinit { Self.live.subtract(1, ordering: .relaxed) }

    private static func born() {
        let now = live.add(1, ordering: .relaxed).newValue
        var seen = peak.load(ordering: .relaxed)
        while now > seen {
            let (exchanged, current) = peak.compareExchange(expected: seen, desired: now, ordering: .relaxed)
            if exchanged { break }
            seen = current
        }
    }

    static func resetPeak() { peak.store(live.load(ordering: .relaxed), ordering: .relaxed) }
}
