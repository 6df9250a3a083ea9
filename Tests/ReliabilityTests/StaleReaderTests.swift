import DataStoreCore
import DataStoreCrashHelper
@testable import DataStoreKit
import Foundation
import LMDB
import Testing

/// A process killed while it holds a read transaction leaves its slot in LMDB's reader table
/// (`lock.mdb`) marked as reading an old snapshot. Until the slot is cleared, no page freed after
/// that snapshot can be reused, so the data file grows with every write.
@Suite("Killed readers", .serialized)
struct StaleReaderTests {
    /// Writes `count` documents of about 2 KiB over the same ids, so that without a pinned snapshot
    /// the file stops growing once freed pages are reused.
    private func overwrite(_ items: StoreCollection<CrashItem>, round: Int, count: Int = 150) async throws {
        let context = items.store.newContext(policy: .lastWriterWins)
        for index in 0..<count {
            var item = CrashItem(tag: "overwrite", of: count, index: index, removes: nil)
            item.payload = String(repeating: "\(round % 10)", count: 2_000)
            try context.put(id: .string(item.id), object: item, in: items)
        }
        try await context.save()
    }

    @Test("with no other process on the store, the next open starts a clean reader table")
    func nextOpenAlone() async throws {
        let path = temporaryStorePath("reader-alone")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let holder = try ChildProcess(["hold-reader", path])
        #expect(try await holder.waitForLine(startingWith: "HOLDING") != nil, "\(holder.lines)")
        holder.killNow()

        // This process is now the only one: LMDB's open takes the lock file exclusively and resets it.
        let store = try DataStore.open(path: path)
        defer { store.close() }
        #expect(try store.environment.clearStaleReaders() == 0)
        let items = try await CrashWorkload.collection(in: store)
        try await overwrite(items, round: 0)
        #expect(try store.check().isEmpty)
    }

    @Test("while another process keeps the store open, a killed reader's slot is reclaimed by the next open")
    func nextOpenBesideALiveProcess() async throws {
        let path = temporaryStorePath("reader-shared")
        defer { try? FileManager.default.removeItem(atPath: path) }
        // This process plays a long-lived server that has the store open the whole time.
        let store = try DataStore.open(path: path)
        defer { store.close() }
        _ = try await CrashWorkload.collection(in: store)

        let holder = try ChildProcess(["hold-reader", path])
        #expect(try await holder.waitForLine(startingWith: "HOLDING") != nil, "\(holder.lines)")
        holder.killNow()

        // The next process to open the store (a restarted worker) should clear the dead slot.
        let next = try ChildProcess(["hold-reader", path])
        #expect(try await next.waitForLine(startingWith: "HOLDING") != nil, "\(next.lines)")
        let leftOver = try store.environment.clearStaleReaders()
        next.killNow()
        // DataStore.open calls clearStaleReaders (mdb_reader_check), so nothing is left to clear.
        #expect(leftOver == 0, "the killed reader's slot was still taken after the next open")
    }

    @Test("readers killed round after round do not make the file grow without bound")
    func boundedGrowth() async throws {
        let rounds = environmentInt("DATASTORE_READER_ROUNDS", default: 6)
        let path = temporaryStorePath("reader-growth")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let store = try DataStore.open(path: path)
        defer { store.close() }
        let items = try await CrashWorkload.collection(in: store)
        try await overwrite(items, round: 0)

        var sizes: [Int] = []
        for round in 1...rounds {
            let holder = try ChildProcess(["hold-reader", path])
            #expect(try await holder.waitForLine(startingWith: "HOLDING") != nil, "\(holder.lines)")
            try await overwrite(items, round: round)
            holder.killNow()
            sizes.append(try store.environment.bytesInUse())
        }
        // While a reader is live, one round's overwrite needs new pages; once its slot is cleared
        // they are reused. So after the first rounds the file stays put. A snapshot pinned by a dead
        // reader instead adds a round's worth of pages every round.
        let settled = sizes[min(1, sizes.count - 1)]
        #expect(sizes.last! <= settled + settled / 4, "bytes in use after each round: \(sizes)")
        #expect(try store.check().isEmpty)
    }
}
