import DataStoreCore
import Foundation
import Synchronization
import Testing
@testable import DataStoreKit

/// What a caller commit on a dedicated thread came to, for the test waiting on it.
final class ThreadOutcome: Sendable {
    private let outcome = Mutex<Result<(any Sendable, CommitID), any Error>??>(nil)

    /// Runs `body` on a new OS thread (never a pool thread: it may block on a gate).
    init(_ body: @escaping @Sendable () -> Result<(any Sendable, CommitID), any Error>?) {
        Thread { [self] in
            let result = body()
            outcome.withLock { $0 = .some(result) }
        }.start()
    }

    /// Whether the thread has finished.
    var isFinished: Bool { outcome.withLock { $0 != nil } }

    /// What `body` returned (waits, bounded by the test's own `eventually`, for it to finish).
    func value() async throws -> Result<(any Sendable, CommitID), any Error>? {
        try await eventually { isFinished }
        return outcome.withLock { $0 } ?? nil
    }
}

/// A caller commit of `change`, tried again while another store's caller commit holds the
/// process's share (`WriterCore.maxCallerCommitsRunning`): other suites save meanwhile.
func commitOnCallerRetrying(
    _ core: WriterCore, _ change: ChangeSet
) -> Result<(any Sendable, CommitID), any Error>? {
    for _ in 0..<5_000 {
        if let outcome = core.commitOnCallerIfIdle(change) { return outcome }
        usleep(1_000)
    }
    return nil
}

@Suite("Caller commits", .serialized)
struct CallerCommitTests {
    @Test(
        "lone saves commit one batch each, on the caller's thread when the process's share is free; readers and the feed see them"
    )
    func loneSaveCommitsOnCaller() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let notes = try await temporary.store.collection(
            Note.self, idField: "id", indexes: [IndexDefinition("created_ts")])
        try await eventually { temporary.store.writer.core.state.withLock { $0.writerSleeping } }
        let before = temporary.store.writerMetrics
        for index in 0..<5 { _ = try await notes.add(object: note("n\(index)", ts: Double(index))) }
        let context = temporary.store.newContext()
        try context.add(note("c"), to: notes)
        let commit = try #require(try await context.save())
        // Another suite's lone saves may hold the process's share of caller commits meanwhile (then
        // the writer commits these): save on until one commits on its caller.
        var extra = 0
        while temporary.store.writerMetrics.callerCommits == before.callerCommits, extra < 2_000 {
            _ = try await notes.add(object: note("x\(extra)", ts: 0))
            extra += 1
        }
        let metrics = temporary.store.writerMetrics
        #expect(metrics.callerCommits > before.callerCommits)
        #expect(metrics.batches - before.batches == 6 + extra)
        #expect(metrics.committedChangeSets - before.committedChangeSets == 6 + extra)
        #expect(try notes.count() == 6 + extra)
        #expect(Set(try await notes.query(params: ["created_ts >=": 3], options: nil).map(\.id)) == ["n3", "n4", "c"])
        var events: [CommitEvent] = []
        for try await event in try temporary.store.changes(after: nil).recordedSoFar { events.append(event) }
        #expect(events.dropFirst(5).first?.commit == commit)
        #expect(events.flatMap(\.changes).flatMap(\.inserted).prefix(6) == ["n0", "n1", "n2", "n3", "n4", "c"])
        #expect(events.count == 6 + extra)
        try expectConsistent(temporary.store)
    }

    @Test(
        "saves made while a caller commits queue for the writer, which the caller wakes when done"
    )
    func savesDuringCallerCommitQueue() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let notes = try await temporary.store.collection(Note.self, idField: "id")
        let core = temporary.store.writer.core
        try await eventually { core.state.withLock { $0.writerSleeping } }
        let before = temporary.store.writerMetrics
        let gate = WriterGate()
        let caller = ThreadOutcome {
            commitOnCallerRetrying(core, ChangeSet(apply: { _ in gate.wait() as Void }, estimatedBytes: 0))
        }
        try await eventually { gate.isHeld }
        async let first = notes.add(object: note("q1"))
        async let second = notes.add(object: note("q2"))
        async let third = notes.add(object: note("q3"))
        try await eventually { temporary.store.writer.queuedCount == 3 }
        #expect(temporary.store.writerMetrics.batches == before.batches)
        gate.open()
        let outcome = try #require(try await caller.value())
        _ = try outcome.get()
        _ = try await (first, second, third)
        let metrics = temporary.store.writerMetrics
        #expect(metrics.callerCommits - before.callerCommits == 1)
        #expect(metrics.batches - before.batches == 2) // the caller's, then the writer's batch of three
        #expect(metrics.largestBatch >= 3)
        #expect(try notes.count() == 3)
    }

    @Test(
        "no caller commit while the writer is busy, another save is in flight or the process's share is taken, nor of a large or exclusive change set"
    )
    func callerCommitOnlyWhenIdleAndSmall() async throws {
        let temporary = try TemporaryStore(options: .init(writerLimits: .init(maxCallerCommitBytes: 100)))
        defer { temporary.remove() }
        let core = temporary.store.writer.core
        try await eventually { core.state.withLock { $0.writerSleeping } }
        let small = ChangeSet(apply: { _ in 1 }, estimatedBytes: 100)
        #expect(core.commitOnCallerIfIdle(ChangeSet(apply: { _ in 1 }, estimatedBytes: 101)) == nil)
        #expect(core.commitOnCallerIfIdle(ChangeSet(apply: { _ in 1 }, estimatedBytes: 0, exclusive: true)) == nil)
        let gate = WriterGate()
        let blocker = Task { try await temporary.store.writer.submit(estimatedBytes: 0) { _ in gate.wait() } }
        try await eventually { gate.isHeld }
        #expect(core.commitOnCallerIfIdle(small) == nil)
        gate.open()
        _ = try await blocker.value
        try await eventually { core.state.withLock { $0.writerSleeping } }
        // Another save in flight (as if two savers saved at once): the writer's batches serve them.
        core.submitsInFlight.add(2, ordering: .relaxed)
        #expect(core.commitOnCallerIfIdle(small) == nil)
        core.submitsInFlight.subtract(2, ordering: .relaxed)
        // The process's share of caller commits taken (by other stores): the writer serves this one.
        let share = WriterCore.maxCallerCommitsRunning
        WriterCore.callerCommitsRunning.wrappingAdd(share, ordering: .acquiringAndReleasing)
        #expect(core.commitOnCallerIfIdle(small) == nil)
        WriterCore.callerCommitsRunning.wrappingSubtract(share, ordering: .acquiringAndReleasing)
        let committed = try #require(commitOnCallerRetrying(core, small))
        #expect(try committed.get().0 as? Int == 1)
        #expect(temporary.store.writerMetrics.callerCommits == 1)
    }

    @Test("a caller commit slower than maxCallerCommitDuration sends the next saves through the writer")
    func slowCallerCommitPauses() async throws {
        var limits = WriterLimits(maxCallerCommitDuration: .zero)
        // A pause that cannot run out while a loaded machine runs the rest of the test, nor end
        // early for the lone saver the test is.
        limits.callerCommitPauseNanoseconds = 3_600_000_000_000
        limits.loneBatchesEndingPause = .max
        let temporary = try TemporaryStore(options: .init(durability: .none, writerLimits: limits))
        defer { temporary.remove() }
        let notes = try await temporary.store.collection(Note.self, idField: "id")
        let core = temporary.store.writer.core
        try await eventually { core.state.withLock { $0.writerSleeping } }
        let small = ChangeSet(apply: { _ in 1 }, estimatedBytes: 0)
        let committed = try #require(commitOnCallerRetrying(core, small))
        _ = try committed.get()
        #expect(temporary.store.writerMetrics.callerCommits == 1)
        // Every commit takes longer than zero: however idle the writer, it takes the next saves.
        try await eventually { core.state.withLock { $0.writerSleeping } }
        #expect(core.commitOnCallerIfIdle(small) == nil)
        let before = temporary.store.writerMetrics
        for index in 0..<5 { _ = try await notes.add(object: note("p\(index)")) }
        let metrics = temporary.store.writerMetrics
        #expect(metrics.callerCommits == 1)
        #expect(metrics.batches - before.batches == 5)
        #expect(try notes.count() == 5)
    }

    @Test("the pause after a slow caller commit ends after a run of the writer's batches of one saver")
    func lonePauseEnds() async throws {
        var limits = WriterLimits(maxCallerCommitDuration: .zero)
        limits.callerCommitPauseNanoseconds = 3_600_000_000_000
        limits.loneBatchesEndingPause = 3
        let temporary = try TemporaryStore(options: .init(durability: .none, writerLimits: limits))
        defer { temporary.remove() }
        let notes = try await temporary.store.collection(Note.self, idField: "id")
        let core = temporary.store.writer.core
        try await eventually { core.state.withLock { $0.writerSleeping } }
        let small = ChangeSet(apply: { _ in 1 }, estimatedBytes: 0)
        _ = try #require(commitOnCallerRetrying(core, small)).get()
        try await eventually { core.state.withLock { $0.writerSleeping } }
        let before = temporary.store.writerMetrics
        // Two lone batches leave the pause on; the third ends it.
        for index in 0..<2 { _ = try await notes.add(object: note("l\(index)")) }
        #expect(core.commitOnCallerIfIdle(small) == nil)
        _ = try await notes.add(object: note("l2"))
        #expect(temporary.store.writerMetrics.batches - before.batches == 3)
        #expect(temporary.store.writerMetrics.callerCommits == before.callerCommits)
        try await eventually { core.state.withLock { $0.writerSleeping } }
        _ = try #require(commitOnCallerRetrying(core, small)).get()
        #expect(temporary.store.writerMetrics.callerCommits == before.callerCommits + 1)
    }

    @Test("a batch of several change sets, or one with saves queued or in flight, starts the lone count again")
    func loneCountResets() async throws {
        var limits = WriterLimits()
        limits.loneBatchesEndingPause = 2
        let temporary = try TemporaryStore(options: .init(durability: .none, writerLimits: limits))
        defer { temporary.remove() }
        let core = temporary.store.writer.core
        func paused() -> Bool { core.callerCommitsPausedUntil.load(ordering: .relaxed) != 0 }
        core.callerCommitsPausedUntil.store(.max, ordering: .relaxed)
        core.endCallerCommitPauseIfLone(batchSize: 1)
        core.endCallerCommitPauseIfLone(batchSize: 2)
        core.endCallerCommitPauseIfLone(batchSize: 1)
        #expect(paused())
        // A save queued behind the batch: another saver is there.
        let queued = WriterCore.Pending(change: ChangeSet(apply: { _ in 1 }, estimatedBytes: 0), complete: { _ in })
        core.state.withLock { state in state.pending.append(queued) }
        core.endCallerCommitPauseIfLone(batchSize: 1)
        #expect(paused())
        core.state.withLock { state in state.pending.removeAll() }
        core.endCallerCommitPauseIfLone(batchSize: 1)
        #expect(paused())
        core.endCallerCommitPauseIfLone(batchSize: 1)
        #expect(!paused())
        // Another save in flight (its saver not yet queued) also breaks the run; an exclusive
        // change set, a batch of its own, neither counts nor breaks it.
        core.callerCommitsPausedUntil.store(.max, ordering: .relaxed)
        core.endCallerCommitPauseIfLone(batchSize: 1)
        core.submitsInFlight.add(2, ordering: .relaxed)
        core.endCallerCommitPauseIfLone(batchSize: 1)
        core.submitsInFlight.subtract(2, ordering: .relaxed)
        core.endCallerCommitPauseIfLone(batchSize: 1, exclusive: true)
        core.endCallerCommitPauseIfLone(batchSize: 1)
        #expect(paused())
        core.endCallerCommitPauseIfLone(batchSize: 1)
        #expect(!paused())
        // A pause past its end is cleared by the next batch, whatever its size.
        core.callerCommitsPausedUntil.store(1, ordering: .relaxed)
        core.endCallerCommitPauseIfLone(batchSize: 5)
        #expect(!paused())
        // A new pause starts its count afresh, whatever an earlier one left.
        core.loneBatchesInPause.store(1, ordering: .relaxed)
        var slow = WriterLimits(maxCallerCommitDuration: .zero)
        slow.loneBatchesEndingPause = 2
        let store = try TemporaryStore(options: .init(durability: .none, writerLimits: slow))
        defer { store.remove() }
        let other = store.store.writer.core
        try await eventually { other.state.withLock { $0.writerSleeping } }
        other.loneBatchesInPause.store(1, ordering: .relaxed)
        _ = try #require(commitOnCallerRetrying(other, ChangeSet(apply: { _ in 1 }, estimatedBytes: 0))).get()
        #expect(other.loneBatchesInPause.load(ordering: .relaxed) == 0)
        other.endCallerCommitPauseIfLone(batchSize: 1)
        #expect(other.callerCommitsPausedUntil.load(ordering: .relaxed) != 0)
    }

    @Test("with maxCallerCommitBytes 0 every save goes through the writer's thread")
    func callerCommitsOff() async throws {
        let temporary = try TemporaryStore(options: .init(writerLimits: .init(maxCallerCommitBytes: 0)))
        defer { temporary.remove() }
        let notes = try await temporary.store.collection(Note.self, idField: "id")
        for index in 0..<3 { _ = try await notes.add(object: note("n\(index)")) }
        #expect(temporary.store.writerMetrics.callerCommits == 0)
        #expect(try notes.count() == 3)
    }

    @Test("closing while a caller commits: the writer finishes after it, and what was queued meanwhile commits")
    func closeDuringCallerCommit() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let notes = try await temporary.store.collection(Note.self, idField: "id")
        let core = temporary.store.writer.core
        try await eventually { core.state.withLock { $0.writerSleeping } }
        let gate = WriterGate()
        let caller = ThreadOutcome {
            commitOnCallerRetrying(core, ChangeSet(apply: { _ in gate.wait() as Void }, estimatedBytes: 0))
        }
        try await eventually { gate.isHeld }
        async let queued = notes.add(object: note("queued"))
        try await eventually { temporary.store.writer.queuedCount == 1 }
        temporary.store.writer.close()
        // The writer thread, woken to close, must wait for the caller's transaction to end.
        try await Task.sleep(nanoseconds: 20_000_000)
        #expect(!core.state.withLock { $0.finished })
        gate.open()
        _ = try #require(try await caller.value()).get()
        _ = try await queued
        try await eventually { core.state.withLock { $0.finished } }
        #expect(temporary.store.writerMetrics.committedChangeSets >= 2)
    }

    @Test("a caller commit that finds the map full leaves it to the writer, which grows it; nothing is lost")
    func callerCommitOnFullMap() async throws {
        let temporary = try TemporaryStore(options: .init(mapSize: 256 * 1024))
        defer { temporary.remove() }
        let notes = try await temporary.store.collection(Note.self, idField: "id")
        let body = String(repeating: "m", count: 4_000)
        for index in 0..<120 { _ = try await notes.add(object: note("n\(index)", message: body)) }
        let metrics = temporary.store.writerMetrics
        #expect(metrics.mapGrowths > 0)
        #expect(metrics.callerCommits > 0)
        #expect(metrics.callerCommits < metrics.batches) // the growth's batch went through the writer
        #expect(try notes.count() == 120)
        try expectConsistent(temporary.store)
    }
}
