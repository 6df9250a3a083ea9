// The change feed across processes: a second process sees the first's commits exactly once, in
// commit order, and a consumer resumes after a SIGKILL of the writer with nothing lost or doubled.
import DataStoreCore
import DataStoreCrashHelper
import DataStoreKit
import Foundation
import Synchronization
import Testing

@Suite("Change feed across processes", .serialized)
struct ChangeFeedProcessTests {
    @Test("another process's commits reach this one's feed once each, in commit order, matching its acknowledgements")
    func secondProcess() async throws {
        let path = temporaryStorePath("feed-processes")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let store = try DataStore.open(path: path)
        defer { store.close() }
        let items = try await CrashWorkload.collection(in: store)
        let feed = try store.changes(after: nil)
        let child = try ChildProcess(["saves", path, "--workers", "2", "--count", "6"])
        #expect(await Self.exit(of: child), "the helper finished: \(child.lines.suffix(3))")
        let acknowledged = child.lines.compactMap { Acknowledgement(line: $0) }
        #expect(acknowledged.count == 12)
        let expected = Set(acknowledged.flatMap { ack in (0..<ack.count).map { Value.string("\(ack.tag).\($0)") } })
        // Nothing commits in this process: every event came by polling the other's commits.
        var events: [CommitEvent] = []
        var inserted: Set<Value> = []
        for try await event in feed {
            events.append(event)
            inserted.formUnion(event.changes.flatMap(\.inserted))
            if inserted.isSuperset(of: expected) { break }
        }
        try Self.expectExactlyOnce(events)
        #expect(inserted == expected)
        #expect(Self.fold(events) == Set(try await items.all().map { Value.string($0.id) }))
    }

    @Test("SIGKILL of the writer process: the consumer resumes after its last commit, nothing lost or doubled")
    func resumeAfterKill() async throws {
        let path = temporaryStorePath("feed-kill")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let store = try DataStore.open(path: path)
        defer { store.close() }
        let items = try await CrashWorkload.collection(in: store)
        let seen = Mutex<[CommitEvent]>([])
        let consumer = Task {
            for try await event in try store.changes(after: nil) { seen.withLock { $0.append(event) } }
        }
        var acknowledged: [Acknowledgement] = []
        for round in 0..<2 {
            let child = try ChildProcess(["saves", path, "--workers", "2", "--prefix", "k\(round)-"])
            _ = try await child.waitForLine(startingWith: "ACK")
            for _ in 0..<15_000 {
                if child.lines.count >= 20 { break }
                try await Task.sleep(nanoseconds: 2_000_000)
            }
            #expect(await Self.exit(of: child, killing: true))
            #expect(child.wasKilled)
            acknowledged += child.lines.compactMap { Acknowledgement(line: $0) }
        }
        consumer.cancel()
        _ = try? await consumer.value
        let handled = seen.withLock { $0 }
        // The consumer's saved position: resume after it, up to a commit of this process.
        let marker = try await items.add(object: CrashItem(tag: "marker", of: 1, index: 0, removes: nil))
        var resumed: [CommitEvent] = []
        for try await event in try store.changes(after: handled.last?.commit) {
            resumed.append(event)
            if event.changes.contains(where: { $0.inserted.contains(.string(marker.id)) }) { break }
        }
        let all = handled + resumed
        try Self.expectExactlyOnce(all)
        let inserted = Set(all.flatMap { $0.changes.flatMap(\.inserted) })
        for ack in acknowledged {
            for index in 0..<ack.count { #expect(inserted.contains(.string("\(ack.tag).\(index)"))) }
        }
        #expect(Self.fold(all) == Set(try await items.all().map { Value.string($0.id) }))
    }

    @Test("an observation in this process follows another process's commits to the results query gives")
    func observationAcrossProcesses() async throws {
        let path = temporaryStorePath("observe-processes")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let store = try DataStore.open(path: path)
        defer { store.close() }
        let items = try await CrashWorkload.collection(in: store)
        var results = try items.observe(params: nil, options: nil).makeAsyncIterator()
        #expect(try await results.next()?.isEmpty == true)
        let child = try ChildProcess(["saves", path, "--workers", "2", "--count", "4"])
        #expect(await Self.exit(of: child), "the helper finished: \(child.lines.suffix(3))")
        let acknowledged = child.lines.compactMap { Acknowledgement(line: $0) }
        let removed = Set(acknowledged.compactMap(\.removes))
        let expected = Set(
            acknowledged.filter { !removed.contains($0.tag) }.flatMap { ack in
                (0..<ack.count).map { "\(ack.tag).\($0)" }
            })
        // Every refresh came from polling: this process commits nothing meanwhile.
        var latest: [CrashItem] = []
        while Set(latest.map(\.id)) != expected, let next = try await results.next() { latest = next }
        #expect(Set(latest.map(\.id)) == expected)
        #expect(expected == Set(try await items.all().map(\.id)))
    }

    /// Waits for the child to exit (after SIGKILL when `killing`) on a thread of its own, so that
    /// no thread of the tests' shared pool is blocked meanwhile; whether it exited on its own.
    static func exit(of child: ChildProcess, killing: Bool = false) async -> Bool {
        guard killing else { return await child.waitForExit() }
        return await onOwnThread {
            child.killNow()
            return true
        }
    }

    /// Commits strictly increasing (so none twice), and no id inserted again before it was removed.
    static func expectExactlyOnce(_ events: [CommitEvent], sourceLocation: SourceLocation = #_sourceLocation) throws {
        let commits = events.map(\.commit)
        #expect(zip(commits, commits.dropFirst()).allSatisfy { $0 < $1 }, sourceLocation: sourceLocation)
        var present: Set<Value> = []
        for event in events {
            for change in event.changes {
                for id in change.inserted {
                    #expect(present.insert(id).inserted, "\(id) inserted twice", sourceLocation: sourceLocation)
                }
                for id in change.removed { present.remove(id) }
            }
        }
    }

    /// The ids the events leave stored.
    static func fold(_ events: [CommitEvent]) -> Set<Value> {
        var ids: Set<Value> = []
        for change in events.flatMap(\.changes) {
            ids.formUnion(change.inserted)
            ids.formUnion(change.updated)
            ids.subtract(change.removed)
        }
        return ids
    }
}
