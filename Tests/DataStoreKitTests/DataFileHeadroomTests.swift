import DataStoreCore
import Foundation
import LMDB
import Testing
@testable import DataStoreKit

/// The writer keeps the data file written ahead of the data when commits sync
/// (`Writer+FileSpace.swift`): counters and sizes, never times.
@Suite("Data-file headroom")
struct DataFileHeadroomTests {
    static let headroom = 256 << 10

    static func open(_ durability: Durability, headroom: Int = headroom) throws -> TemporaryStore {
        try TemporaryStore(
            options: DataStore.Options(
                durability: durability,
                writerLimits: Writer.Limits(dataFileHeadroom: headroom)))
    }

    static func fileSize(_ temporary: TemporaryStore) throws -> Int {
        try FileManager.default.attributesOfItem(atPath: temporary.path + "/data.mdb")[.size] as! Int
    }

    @Test(
        "durable and relaxed small saves keep about half the headroom to all of it after the data",
        arguments: [
            Durability.durable, .relaxed
        ])
    func keptAhead(_ durability: Durability) async throws {
        let temporary = try Self.open(durability)
        defer { temporary.remove() }
        let notes = try await temporary.store.collection(
            Note.self, idField: "id", indexes: [IndexDefinition("created_ts")])
        let pageSize = try temporary.store.environment.statistics().pageSize
        var outside: [(save: Int, ahead: Int)] = []
        for index in 0..<300 {
            _ = try await notes.add(
                object: note("n\(index)", ts: Double(index), message: String(repeating: "x", count: 200)))
            // Topped up before a commit when less than half is left, so a commit may end a few
            // pages short of half.
            let ahead = try Self.fileSize(temporary) - temporary.store.environment.bytesInUse()
            if ahead < Self.headroom / 2 - 8 * pageSize || ahead > Self.headroom { outside.append((index, ahead)) }
        }
        #expect(outside.isEmpty, "bytes ahead of the data after these saves: \(outside.prefix(5))")
        let extensions = temporary.store.writerMetrics.dataFileExtensions
        // 300 records of ~300 bytes fill ~90 KiB of leaves (more with the index and copied
        // branches): the 128 KiB the first extension leaves spare run out at least once.
        #expect(extensions >= 2, "\(extensions) extensions")
        #expect(extensions <= 20, "\(extensions) extensions: topped up far more often than every 128 KiB")
        try expectConsistent(temporary.store)
    }

    @Test("no headroom without syncing commits, or when turned off")
    func notWhenOff() async throws {
        for (durability, headroom) in [(Durability.none, Self.headroom), (.durable, 0)] {
            let temporary = try Self.open(durability, headroom: headroom)
            defer { temporary.remove() }
            let notes = try await temporary.store.collection(Note.self, idField: "id")
            for index in 0..<100 { _ = try await notes.add(object: note("n\(index)")) }
            #expect(temporary.store.writerMetrics.dataFileExtensions == 0, "\(durability), headroom \(headroom)")
            #expect(
                try Self.fileSize(temporary) == temporary.store.environment.bytesInUse(),
                "\(durability), headroom \(headroom)")
        }
    }

    @Test("a commit after a bulk write does not extend the file; the one after it does")
    func bulkWritesLeftAlone() async throws {
        let temporary = try Self.open(.durable)
        defer { temporary.remove() }
        let notes = try await temporary.store.collection(Note.self, idField: "id")
        _ = try await notes.add(object: note("first"))
        let beforeBulk = temporary.store.writerMetrics.dataFileExtensions
        #expect(beforeBulk == 1)
        // ~600 KiB in one commit: more than a quarter of the headroom, and past all of it.
        let bulk = (0..<2_000).map { note("bulk\($0)", message: String(repeating: "y", count: 300)) }
        _ = try await notes.add(contentsOf: bulk)
        #expect(
            try Self.fileSize(temporary) == temporary.store.environment.bytesInUse(),
            "the bulk commit did not outgrow the headroom")
        let afterBulk = temporary.store.writerMetrics.dataFileExtensions
        _ = try await notes.add(object: note("after bulk"))
        #expect(
            temporary.store.writerMetrics.dataFileExtensions == afterBulk,
            "the commit right after a bulk write extended the file")
        _ = try await notes.add(object: note("later"))
        #expect(temporary.store.writerMetrics.dataFileExtensions == afterBulk + 1)
        #expect(try Self.fileSize(temporary) - temporary.store.environment.bytesInUse() >= Self.headroom / 2)
    }

    @Test("the zeros survive a reopen harmlessly: every document reads back, the store checks clean, writes go on")
    func reopen() async throws {
        let path: String
        do {
            let temporary = try Self.open(.durable)
            path = temporary.path
            let notes = try await temporary.store.collection(
                Note.self, idField: "id", indexes: [IndexDefinition("created_ts")])
            for index in 0..<50 { _ = try await notes.add(object: note("n\(index)", ts: Double(index))) }
            #expect(temporary.store.writerMetrics.dataFileExtensions >= 1)
            temporary.store.close()
        }
        defer { try? FileManager.default.removeItem(atPath: path) }
        let store = try DataStore.open(path: path)
        defer { store.close() }
        let notes = try await store.collection(Note.self, idField: "id", indexes: [IndexDefinition("created_ts")])
        #expect(try await notes.all().count == 50)
        #expect(try await notes.query(params: ["created_ts >=": 40], options: nil).count == 10)
        _ = try await notes.add(object: note("n50", ts: 50))
        #expect(try await notes.all().count == 51)
        try expectConsistent(store)
    }
}
