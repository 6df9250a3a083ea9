import DataStoreCore
@testable import DataStoreKit
import Foundation
import LMDB
import Synchronization
import Testing

/// Map growth needs every read transaction in the process to end (lmdb.h, `mdb_env_set_mapsize`).
/// A context's snapshot is a long-lived read transaction: these tests check that one never makes a
/// save wait without bound.
@Suite("Snapshots and map growth", .serialized)
struct SnapshotGrowthTests {
    /// Adds notes of about 50 KB until `total` bytes were written: several times a 1 MiB map.
    private func fill(_ notes: StoreCollection<Note>, prefix: String, total: Int = 3 << 20) async throws {
        for index in 0..<(total / 50_000) {
            _ = try await notes.add(object: note("\(prefix)\(index)", message: String(repeating: "x", count: 50_000)))
        }
    }

    @Test("a context holding its snapshot while the map must grow: saves go on, the context's next read fails typed")
    func idleContextYields() async throws {
        // No age cap: on a slow run (ThreadSanitizer) the fill can outlast it, and only growth may end the snapshot here.
        var options = DataStore.Options(mapSize: 1 << 20)
        options.maxSnapshotAge = nil
        let temporary = try TemporaryStore(options: options)
        defer { temporary.remove() }
        let notes = try await temporary.store.collection(Note.self, idField: "id")
        _ = try await notes.add(object: note("first"))
        let context = temporary.store.newContext()
        _ = try context.get(id: "first", from: notes)

        // Before contexts' snapshots yielded, this waited for the context forever.
        try await withTimeLimit(seconds: 120) { try await fill(notes, prefix: "n") }
        #expect(temporary.store.writer.metrics.mapGrowths >= 1)

        // Its view may not change under the read it made: every read throws until refresh().
        for _ in 0..<2 {
            let error = #expect(throws: DataStoreError.self) { _ = try context.get(id: "n0", from: notes) }
            #expect(error?.code == .snapshotExpired, "\(String(describing: error))")
            #expect(error?.message.contains("grow the map") == true, "\(String(describing: error))")
        }
        context.refresh()
        #expect(try context.get(id: "n0", from: notes).id == "n0")
        try expectConsistent(temporary.store)
    }

    @Test("a reader that cannot yield fails the save fast with a typed error naming it; saves succeed once it ends")
    func heldReaderFailsTheSave() async throws {
        let temporary = try TemporaryStore(
            options: .init(mapSize: 1 << 20, writerLimits: .init(mapGrowthWait: .milliseconds(300))))
        defer { temporary.remove() }
        let notes = try await temporary.store.collection(Note.self, idField: "id")
        _ = try await notes.add(object: note("first"))
        var reader: ReadTransaction? = try temporary.store.environment.beginRead()

        let failure: DataStoreError? = try await withTimeLimit(seconds: 120) {
            do {
                try await fill(notes, prefix: "n")
                return nil
            } catch let error as DataStoreError {
                return error
            }
        }
        let error = try #require(failure, "the map grew while a read transaction was live")
        #expect(error.code == .storage)
        #expect((error.underlying as? LMDBError)?.code == .mapResizeBlocked, "\(error)")
        #expect(error.message.contains("a read transaction begun with Environment.beginRead() opened"), "\(error)")
        #expect(error.message.contains("at commit"), "\(error)")
        // While it lives, later saves that need growth fail too, at once (it blocked the last growth).
        let again = await #expect(throws: DataStoreError.self) {
            try await withTimeLimit(seconds: 120) {
                _ = try await notes.add(object: note("again", message: String(repeating: "y", count: 200_000)))
            }
        }
        #expect((again?.underlying as? LMDBError)?.code == .mapResizeBlocked, "\(String(describing: again))")
        #expect(temporary.store.writer.metrics.blockedMapGrowths >= 2)

        let wasHeld = reader != nil
        #expect(wasHeld)
        reader = nil
        try await withTimeLimit(seconds: 120) { try await fill(notes, prefix: "later") }
        #expect(temporary.store.writer.metrics.mapGrowths >= 1)
        #expect(try notes.count() >= (3 << 20) / 50_000)
        try expectConsistent(temporary.store)
    }

    /// A store whose contexts' snapshots are capped at 0.2 s, and its `Note` collection.
    private func storeWithSnapshotCap() async throws -> (TemporaryStore, StoreCollection<Note>) {
        var options = DataStore.Options()
        options.maxSnapshotAge = .milliseconds(200)
        let temporary = try TemporaryStore(options: options)
        return (temporary, try await temporary.store.collection(Note.self, idField: "id"))
    }

    @Test("a context past maxSnapshotAge gets a typed error naming the age and the cap, and reads on after refresh()")
    func snapshotAgeCap() async throws {
        let (temporary, notes) = try await storeWithSnapshotCap()
        defer { temporary.remove() }
        _ = try await notes.add(object: note("first"))
        _ = try await notes.add(object: note("second"))
        let context = temporary.store.newContext()
        _ = try context.get(id: "first", from: notes)
        try context.put(id: "first", object: note("first", message: "changed"), in: notes)

        try await Task.sleep(nanoseconds: 500_000_000)
        // Its own staged change needs no snapshot; anything else does.
        #expect(try context.get(id: "first", from: notes).message == "changed")
        let error = #expect(throws: DataStoreError.self) { _ = try context.get(id: "second", from: notes) }
        #expect(error?.code == .snapshotExpired)
        #expect(error?.message.contains("maxSnapshotAge (0.2 s)") == true, "\(String(describing: error))")
        #expect(error?.message.contains("s after it opened") == true, "\(String(describing: error))")

        // What it staged and read is kept: the save still checks the version it read, and commits.
        try await context.save()
        #expect(try await notes.get(id: "first").message == "changed")
        context.refresh()
        #expect(try context.get(id: "first", from: notes).message == "changed")
    }

    @Test("an idle writer ends an expired snapshot without waiting for the context's next read")
    func idleWriterEndsExpiredSnapshot() async throws {
        let (temporary, notes) = try await storeWithSnapshotCap()
        defer { temporary.remove() }
        _ = try await notes.add(object: note("first"))
        let context = temporary.store.newContext()
        _ = try context.get(id: "first", from: notes)
        func held() throws -> Bool {
            try temporary.store.statistics().readers.contains { $0.holder == "a Context's snapshot" }
        }
        #expect(try held())
        // Bounded polling, not a timing assertion: the snapshot must go within a generous bound.
        var polls = 0
        while try held(), polls < 1_000 {
            try await Task.sleep(nanoseconds: 10_000_000)
            polls += 1
        }
        #expect(try !held(), "the expired snapshot was still open after 10 s")
        let error = #expect(throws: DataStoreError.self) { _ = try context.get(id: "first", from: notes) }
        #expect(error?.code == .snapshotExpired)
    }

    @Test("with no cap, an old snapshot keeps its view")
    func noCap() async throws {
        var options = DataStore.Options()
        options.maxSnapshotAge = nil
        let temporary = try TemporaryStore(options: options)
        defer { temporary.remove() }
        let notes = try await temporary.store.collection(Note.self, idField: "id")
        _ = try await notes.add(object: note("first"))
        let context = temporary.store.newContext()
        _ = try context.get(id: "first", from: notes)
        _ = try await notes.put(id: "first", object: note("first", message: "changed"))
        try await Task.sleep(nanoseconds: 300_000_000)
        #expect(try context.get(id: "first", from: notes).message == "hello")
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
        Task { resume(await Result(catching: operation)) }
        Task {
            try? await Task.sleep(nanoseconds: UInt64(seconds * 1e9))
            resume(.failure(TimedOut(seconds: seconds)))
        }
    }
}

extension Result where Failure == any Error {
    init(catching body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}
