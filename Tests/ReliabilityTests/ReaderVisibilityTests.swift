import DataStoreCore
import DataStoreCrashHelper
import DataStoreKit
import Foundation
import LMDB
import Testing

/// A reader held open in another process keeps the pages written after its snapshot from being
/// reused (LMDB's nature): statistics must show it, with how far behind it is.
@Suite("Reader visibility", .serialized)
struct ReaderVisibilityTests {
    @Test("statistics list a reader held in another process, its lag growing with each commit")
    func otherProcessReaderIsListed() async throws {
        let path = temporaryStorePath("reader-visible")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let store = try DataStore.open(path: path)
        defer { store.close() }
        let items = try await CrashWorkload.collection(in: store)

        let holder = try ChildProcess(["hold-reader", path])
        let holding = try #require(try await holder.waitForLine(startingWith: "HOLDING"), "\(holder.lines)")
        let snapshot = try #require(Int(holding.split(separator: " ")[1]))
        defer { holder.killNow() }

        func heldReader() throws -> StoreStatistics.Reader? {
            try store.statistics().readers.first { $0.processID == holder.pid }
        }
        let listed = try store.statistics().readers
        let before = try #require(listed.first { $0.processID == holder.pid }, "readers: \(listed)")
        #expect(before.isThisProcess == false)
        #expect(before.snapshotID == snapshot)
        #expect(before.age == nil, "another process's reader has no known age")
        for index in 0..<3 {
            _ = try await items.add(object: CrashItem(tag: "lag", of: 3, index: index, removes: nil))
        }
        let after = try #require(try heldReader())
        #expect(after.snapshotID == snapshot)
        #expect(after.commitsBehind >= before.commitsBehind + 3, "before \(before), after \(after)")
    }

    @Test("statistics list this process's context snapshot with its holder and age")
    func thisProcessSnapshotIsListed() async throws {
        let path = temporaryStorePath("reader-own")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let store = try DataStore.open(path: path)
        defer { store.close() }
        let items = try await CrashWorkload.collection(in: store)
        let context = store.newContext()
        _ = try context.query(items, params: nil)
        _ = try await items.add(object: CrashItem(tag: "own", of: 1, index: 0, removes: nil))

        let own = try store.statistics().readers.filter(\.isThisProcess)
        let snapshot = try #require(own.first { $0.holder == "a Context's snapshot" }, "readers: \(own)")
        #expect(snapshot.age != nil)
        #expect(snapshot.commitsBehind >= 1)
        context.refresh()
        #expect(try store.statistics().readers.filter { $0.holder == "a Context's snapshot" }.isEmpty)
    }
}
