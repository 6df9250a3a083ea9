import DataStoreCore
import DataStoreCrashHelper
@testable import DataStoreKit
import Foundation
import LMDB
import Synchronization
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

    @Test("a map grown by another process is adopted while a context of this one holds its snapshot")
    func adoptGrowthBesideAContext() async throws {
        let path = temporaryStorePath("reader-adopt")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let store = try DataStore.open(path: path, options: .init(mapSize: 1 << 20))
        defer { store.close() }
        let items = try await CrashWorkload.collection(in: store)
        let context = store.newContext()
        _ = try context.query(items, params: nil)

        // The child opens with the default 1 GiB map and writes past this process's 1 MiB.
        let writer = try ChildProcess(["saves", path, "--count", "400", "--workers", "4"])
        #expect(await writer.waitForExit(timeout: 300), "\(writer.lines.suffix(3))")
        #expect(writer.exitStatus == 0, "\(writer.lines.suffix(3))")

        // This process's next transaction must adopt the new size (MDB_MAP_RESIZED), which needs
        // every transaction here to end: the context's snapshot yields, so the read neither
        // waits forever (as it did) nor fails.
        let count = try await withTimeLimit(seconds: 120) { try items.count() }
        #expect(count > 0)
        #expect(try store.environment.info().mapSize > 1 << 20, "the child did not write past this process's map")
        let error = #expect(throws: DataStoreError.self) { _ = try context.query(items, params: nil) }
        #expect(error?.code == .snapshotExpired, "\(String(describing: error))")
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

struct TimedOut: Error, CustomStringConvertible {
    var seconds: Double
    var description: String { "did not finish within \(seconds) s: it hangs" }
}

/// Runs `operation` and returns its result, or throws ``TimedOut`` after `seconds` (the operation
/// is left running), so a hang fails the test instead of hanging the test run.
func withTimeLimit<R: Sendable>(seconds: Double, _ operation: @escaping @Sendable () async throws -> R) async throws
    -> R
{
    let finished = Mutex<Bool>(false)
    return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<R, any Error>) in
        let resume: @Sendable (Result<R, any Error>) -> Void = { result in
            let first = finished.withLock { done in
                defer { done = true }
                return !done
            }
            if first { continuation.resume(with: result) }
        }
        Task {
            do { resume(.success(try await operation())) } catch { resume(.failure(error)) }
        }
        Task {
            try? await Task.sleep(nanoseconds: UInt64(seconds * 1e9))
            resume(.failure(TimedOut(seconds: seconds)))
        }
    }
}
