import DataStoreCore
import Dispatch
import Foundation
import Synchronization
import LMDB
import Testing
@testable import DataStoreKit

/// A gate a change set can wait on inside the writer, so a test knows exactly what the next batch
/// holds. (Only tests block the writer; real change sets never wait.)
final class WriterGate: Sendable {
    private let semaphore = DispatchSemaphore(value: 0)
    private let entered = Atomic<Bool>(false)
    func wait() {
        entered.store(true, ordering: .sequentiallyConsistent)
        semaphore.wait()
    }
    func open() { semaphore.signal() }
    var isHeld: Bool { entered.load(ordering: .sequentiallyConsistent) }
}

/// A flag one task raises for others.
final class StopFlag: Sendable {
    private let flag = Atomic<Bool>(false)
    var isSet: Bool { flag.load(ordering: .relaxed) }
    func set() { flag.store(true, ordering: .relaxed) }
}

/// Waits (bounded) until `condition` holds.
func eventually(_ condition: () -> Bool) async throws {
    for _ in 0..<2_000 where !condition() { try await Task.sleep(nanoseconds: 2_000_000) }
    #expect(condition())
}

@Suite("Writer")
struct WriterTests {
    @Test("thousands of concurrent durable saves: each present exactly once, indexes consistent, batches formed")
    func concurrentSaves() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let notes = try await temporary.store.collection(
            Note.self, idField: "id",
            indexes: [
                IndexDefinition("created_ts"), IndexDefinition("from_user_key")
            ])
        let before = temporary.store.writerMetrics
        let tasks = 64, perTask = 40
        let acknowledged = try await withThrowingTaskGroup(of: [String].self) { group in
            for task in 0..<tasks {
                group.addTask {
                    var ids: [String] = []
                    for index in 0..<perTask {
                        let id = "t\(task)-\(index)"
                        if index % 2 == 0 {
                            _ = try await notes.add(object: note(id, from: "u\(task % 7)", ts: Double(index)))
                        } else {
                            let context = temporary.store.newContext()
                            try context.add(note(id, from: "u\(task % 7)", ts: Double(index)), to: notes)
                            try await context.save()
                        }
                        ids.append(id)
                    }
                    return ids
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        #expect(acknowledged.count == tasks * perTask)
        let stored = try await notes.all().compactMap(\.id)
        #expect(stored.count == tasks * perTask)
        #expect(Set(stored) == Set(acknowledged))
        try expectConsistent(temporary.store)
        let metrics = temporary.store.writerMetrics
        let saves = metrics.committedChangeSets - before.committedChangeSets
        let batches = metrics.batches - before.batches
        #expect(saves == tasks * perTask)
        #expect(batches < saves) // coalesced: fewer commits than saves
        #expect(metrics.largestBatch > 1)
    }

    @Test("a lone durable save survives reopening; the durable store syncs its meta pages itself")
    func loneDurableSave() async throws {
        let path = NSTemporaryDirectory() + "datastorekit-durable-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: path) }
        do {
            let store = try DataStore.open(path: path)
            // LMDB's standard durable commit: neither sync is turned off.
            #expect(store.environment.configuration.flags.isDisjoint(with: [.noSync, .noMetaSync]))
            let notes = try await store.collection(Note.self, idField: "id")
            _ = try await notes.add(object: note("alone"))
            store.close()
        }
        let store = try DataStore.open(path: path)
        let notes = try await store.collection(Note.self, idField: "id")
        #expect(try await notes.get(id: "alone").id == "alone")
    }

    @Test("in one batch, a failing change set is rolled back alone; the others commit together")
    func failingChangeSetInBatch() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let notes = try await temporary.store.collection(
            Note.self, idField: "id", indexes: [IndexDefinition("created_ts")])
        _ = try await notes.add(object: note("taken"))
        let gate = WriterGate()
        let blocker = Task { try await temporary.store.writer.submit(estimatedBytes: 0) { _ in gate.wait() } }
        try await eventually { gate.isHeld }
        let batchesBefore = temporary.store.writerMetrics.batches

        async let good1 = notes.add(object: note("g1", ts: 1))
        async let bad = notes.add(object: note("taken", message: "duplicate"))
        async let good2 = notes.add(object: note("g2", ts: 2))
        try await eventually { temporary.store.writer.queuedCount == 3 }
        gate.open()
        _ = try await blocker.value

        let (first, second) = try await (good1, good2)
        #expect(first.id == "g1" && second.id == "g2")
        do {
            _ = try await bad
            Issue.record("the duplicate add succeeded")
        } catch let error as DataStoreError {
            #expect(error.code == .duplicateID)
        }
        let metrics = temporary.store.writerMetrics
        #expect(metrics.batches - batchesBefore == 2) // the blocker's batch, then one batch of three
        #expect(metrics.largestBatch >= 3)
        #expect(metrics.isolationReplays == 1) // applied straight, then again with the duplicate isolated
        #expect(try await notes.get(id: "taken").message == "hello")
        #expect(try notes.count() == 3)
        try expectConsistent(temporary.store)
    }

    @Test("change sets that fail after writing leave nothing behind; the batch is applied again once, the rest commit")
    func halfWrittenFailuresInBatch() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let notes = try await temporary.store.collection(
            Note.self, idField: "id", indexes: [IndexDefinition("created_ts")])
        let storage = notes.storage
        let gate = WriterGate()
        let blocker = Task { try await temporary.store.writer.submit(estimatedBytes: 0) { _ in gate.wait() } }
        try await eventually { gate.isHeld }
        let before = temporary.store.writerMetrics

        // Each change set writes two notes; the odd ones then throw, after their writes.
        struct Refused: Error { let number: Int }
        let submissions = (0..<6).map { number in
            Task {
                try await temporary.store.writer.submit(estimatedBytes: 0) { transaction -> Int in
                    for part in ["a", "b"] {
                        let id = "n\(number)\(part)"
                        try storage.write(
                            storage.prepare(
                                try DocumentEncoder().encode(note(id, ts: Double(number))), id: .string(id)),
                            mode: .insert, in: &transaction)
                    }
                    if number % 2 == 1 { throw Refused(number: number) }
                    return number
                }.result
            }
        }
        try await eventually { temporary.store.writer.queuedCount == 6 }
        gate.open()
        _ = try await blocker.value

        for (number, submission) in submissions.enumerated() {
            do {
                #expect(try await submission.value == number)
                #expect(number % 2 == 0)
            } catch let error as Refused {
                #expect(error.number == number && number % 2 == 1)
            }
        }
        let metrics = temporary.store.writerMetrics
        #expect(metrics.batches - before.batches == 2) // the blocker's, then all six in one
        // The first failure replays; the later ones were nested.
        #expect(metrics.isolationReplays - before.isolationReplays == 1)
        #expect(metrics.failedChangeSets - before.failedChangeSets == 3)
        #expect(try notes.count() == 6)
        for number in 0..<6 {
            for part in ["a", "b"] {
                let found = try await notes.query(params: ["id": .string("n\(number)\(part)")], options: [:])
                #expect(found.count == (number % 2 == 0 ? 1 : 0))
            }
        }
        try expectConsistent(temporary.store)
    }

    @Test("an exclusive change set (a schema change) is committed in a batch of its own")
    func exclusiveChangeSetAlone() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let notes = try await temporary.store.collection(Note.self, idField: "id")
        let writer = temporary.store.writer
        let gate = WriterGate()
        let blocker = Task { try await writer.submit(estimatedBytes: 0) { _ in gate.wait() } }
        try await eventually { gate.isHeld }
        let before = temporary.store.writerMetrics
        let first = Task { try await notes.add(object: note("a")) }
        try await eventually { writer.queuedCount == 1 }
        let exclusive = Task { try await writer.submit(estimatedBytes: 0, exclusive: true) { _ in 7 }.result }
        try await eventually { writer.queuedCount == 2 }
        let last = Task { try await notes.add(object: note("b")) }
        try await eventually { writer.queuedCount == 3 }
        gate.open()
        _ = try await blocker.value
        _ = try await (first.value, last.value)
        #expect(try await exclusive.value == 7)
        let metrics = temporary.store.writerMetrics
        #expect(metrics.batches - before.batches == 4) // the blocker's, [a], [exclusive], [b]
        #expect(try notes.count() == 2)
    }

    @Test("a change set that fails alone in its batch commits nothing")
    func loneFailureCommitsNothing() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let notes = try await temporary.store.collection(Note.self, idField: "id")
        _ = try await notes.add(object: note("taken"))
        let before = temporary.store.writerMetrics
        await #expect(throws: DataStoreError.self) { try await notes.add(object: note("taken", message: "again")) }
        let metrics = temporary.store.writerMetrics
        #expect(metrics.batches == before.batches)
        #expect(metrics.failedChangeSets == before.failedChangeSets + 1)
        #expect(metrics.isolationReplays == before.isolationReplays)
        #expect(try await notes.get(id: "taken").message == "hello")
    }

    @Test("a full queue makes submitters wait (backpressure) instead of growing")
    func backpressure() async throws {
        let temporary = try TemporaryStore(
            options: .init(writerLimits: .init(maxChangeSetsPerBatch: 2, maxQueuedChangeSets: 4)))
        defer { temporary.remove() }
        let notes = try await temporary.store.collection(Note.self, idField: "id")
        let gate = WriterGate()
        let blocker = Task { try await temporary.store.writer.submit(estimatedBytes: 0) { _ in gate.wait() } }
        try await eventually { gate.isHeld }
        let adds = (0..<10).map { index in Task { try await notes.add(object: note("n\(index)")) } }
        try await eventually { temporary.store.writer.queuedCount == 4 && temporary.store.writer.waitingForRoom == 6 }
        gate.open()
        _ = try await blocker.value
        for add in adds { _ = try await add.value }
        #expect(try notes.count() == 10)
        #expect(temporary.store.writerMetrics.largestBatch <= 2)
    }

    @Test("from a tiny map, the writer grows it under concurrent readers and writers; nothing acknowledged is lost")
    func mapGrowth() async throws {
        let temporary = try TemporaryStore(options: .init(mapSize: 256 * 1024))
        defer { temporary.remove() }
        let notes = try await temporary.store.collection(
            Note.self, idField: "id", indexes: [IndexDefinition("created_ts")])
        let body = String(repeating: "m", count: 2_000)
        let writers = 8, perWriter = 60
        let done = StopFlag()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for reader in 0..<4 {
                group.addTask {
                    while !done.isSet {
                        let found = try await notes.query(
                            params: ["created_ts >=": .int(Int64(reader))], options: ["limit": 50])
                        #expect(found.allSatisfy { $0.created_ts >= Double(reader) })
                        await Task.yield()
                    }
                }
            }
            try await withThrowingTaskGroup(of: Void.self) { writersGroup in
                for writer in 0..<writers {
                    writersGroup.addTask {
                        for index in 0..<perWriter {
                            _ = try await notes.add(
                                object: note("w\(writer)-\(index)", ts: Double(index), message: body))
                        }
                    }
                }
                try await writersGroup.waitForAll()
            }
            done.set()
            try await group.waitForAll()
        }
        #expect(try notes.count() == writers * perWriter)
        #expect(temporary.store.writerMetrics.mapGrowths > 0)
        #expect(try temporary.store.environment.info().mapSize > 256 * 1024)
        try expectConsistent(temporary.store)
    }

    @Test(
        "a context's save of many inserts that fills a tiny map grows it and commits; the map-full error never reaches the caller"
    )
    func contextInsertsGrowTheMap() async throws {
        let temporary = try TemporaryStore(options: .init(mapSize: 256 * 1024))
        defer { temporary.remove() }
        let notes = try await temporary.store.collection(
            Note.self, idField: "id", indexes: [IndexDefinition("created_ts")])
        let body = String(repeating: "m", count: 2_000)
        let context = temporary.store.newContext()
        // Inserts of records seen absent, which are not looked up before their put: the map
        // fills in the middle of them, and the writer must see that as map full.
        for index in 0..<200 { try context.add(note("c\(index)", ts: Double(index), message: body), to: notes) }
        try await context.save()
        #expect(try notes.count() == 200)
        #expect(temporary.store.writerMetrics.mapGrowths > 0)
        try expectConsistent(temporary.store)
    }

    @Test(
        "a batch the transaction cannot hold is split and retried until it fits; a change set that never fits fails alone"
    )
    func transactionFullSplits() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let notes = try await temporary.store.collection(Note.self, idField: "id")
        // LMDB's MDB_TXN_FULL needs ~512 MiB of dirty pages; these change sets report it instead
        // once their transaction already holds four of them, as a batch too large would.
        let filler = TransactionFiller(fits: 4)
        let (storage, environment) = (notes.storage, temporary.store.environment)
        let gate = WriterGate()
        let blocker = Task { try await temporary.store.writer.submit(estimatedBytes: 0) { _ in gate.wait() } }
        try await eventually { gate.isHeld }
        let before = temporary.store.writerMetrics
        let saves = (0..<16).map { index in
            Task {
                try await temporary.store.writer.submit(
                    estimatedBytes: 0, filler.insert("s\(index)", into: storage, of: environment)
                ).result
            }
        }
        let hopeless = Task {
            try await temporary.store.writer.submit(estimatedBytes: 0) { (_: inout WriteTransaction) throws -> Int in
                throw LMDBError(.transactionFull, context: "test: never fits")
            }.result
        }
        try await eventually { temporary.store.writer.queuedCount == 17 }
        gate.open()
        _ = try await blocker.value

        for save in saves { #expect(try await save.value <= filler.fits) }
        do {
            _ = try await hopeless.value
            Issue.record("a change set larger than any transaction committed")
        } catch let error as DataStoreError {
            #expect(error.code == .storage)
            #expect(error.message.contains("larger than a write transaction"))
        }
        let metrics = temporary.store.writerMetrics
        #expect(metrics.batchSplits - before.batchSplits >= 3) // 17 → 8 + 9 → … until each part fits
        #expect(metrics.committedChangeSets - before.committedChangeSets == 16 + 1) // and the blocker
        #expect(try notes.count() == 16)
        try expectConsistent(temporary.store)
    }

    @Test("a map that may not grow fails writes by name, keeps what was acknowledged, and serves reads")
    func mapCannotGrow() async throws {
        let temporary = try TemporaryStore(
            options: .init(mapSize: 256 * 1024, writerLimits: .init(maxMapSize: 256 * 1024)))
        defer { temporary.remove() }
        let notes = try await temporary.store.collection(Note.self, idField: "id")
        let body = String(repeating: "m", count: 4_000)
        var acknowledged: [String] = []
        var failure: DataStoreError?
        for index in 0..<200 {
            do {
                _ = try await notes.add(object: note("n\(index)", message: body))
                acknowledged.append("n\(index)")
            } catch let error as DataStoreError {
                failure = error
                break
            }
        }
        #expect(failure?.code == .storage)
        #expect(failure?.message.contains("full") == true)
        #expect(try notes.count() == acknowledged.count)
        #expect(try await notes.get(id: .string(acknowledged.last!)).message == body)
        // Removing makes room again.
        for id in acknowledged.prefix(10) { _ = try await notes.remove(id: .string(id)) }
        _ = try await notes.add(object: note("after", message: "small"))
        #expect(try await notes.get(id: "after").message == "small")
    }

    @Test("observers see every committed change once, in commit order")
    func observation() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let notes = try await temporary.store.collection(Note.self, idField: "id")
        let events = temporary.store.changes()
        _ = try await notes.add(object: note("a"))
        _ = try await notes.put(id: "a", object: note("a", message: "changed"))
        let context = temporary.store.newContext()
        try context.add(note("b"), to: notes)
        try context.add(note("c"), to: notes)
        try await context.save()
        _ = try await notes.remove(id: "a")
        await #expect(throws: DataStoreError.self) { try await notes.remove(id: "a") } // failed: no event

        var seen: [CommitEvent] = []
        for await event in events {
            seen.append(event)
            if seen.count == 4 { break }
        }
        #expect(seen.map(\.commit) == seen.map(\.commit).sorted())
        #expect(Set(seen.map(\.commit)).count == 4)
        let changes = seen.flatMap(\.changes)
        #expect(changes.allSatisfy { $0.collection == "Note" })
        #expect(changes.flatMap(\.inserted) == ["a", "b", "c"])
        #expect(changes.flatMap(\.updated) == ["a"])
        #expect(changes.flatMap(\.removed) == ["a"])
    }

    @Test("a save that changed nothing is no event to observers, and is acknowledged")
    func emptySaveIsNoEvent() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let notes = try await temporary.store.collection(Note.self, idField: "id")
        _ = try await notes.add(object: note("gone"))
        let events = temporary.store.changes()
        // Last writer wins: a remove of what was removed meanwhile holds as it is; nothing is written.
        let context = temporary.store.newContext(policy: .lastWriterWins)
        _ = try context.remove(id: "gone", from: notes)
        _ = try await notes.remove(id: "gone")
        _ = try #require(try await context.save())
        _ = try await notes.add(object: note("after"))

        var seen: [CommitEvent] = []
        for await event in events {
            seen.append(event)
            if seen.count == 2 { break }
        }
        // The removal, then the add: no empty event between them.
        #expect(seen.flatMap(\.changes).flatMap(\.removed) == ["gone"])
        #expect(seen.last?.changes.flatMap(\.inserted) == ["after"])
        #expect(seen.allSatisfy { !$0.changes.isEmpty })
    }
}

/// Change sets that insert a note but report `MDB_TXN_FULL` when their write transaction already
/// holds `fits` uncommitted notes — the writer's view of a batch too large for one transaction.
/// (Uncommitted = seen by the write transaction but not by a fresh snapshot; an aborted attempt
/// leaves nothing behind, so every retry counts afresh.)
final class TransactionFiller: Sendable {
    let fits: Int
    init(fits: Int) { self.fits = fits }

    func insert(_ id: String, into storage: CollectionTable, of environment: Environment)
        -> @Sendable (inout WriteTransaction) throws -> Int
    {
        { [fits] transaction in
            let pending =
                try transaction.count(of: storage.records) - environment.read { try $0.count(of: storage.records) }
            if pending >= fits { throw LMDBError(.transactionFull, context: "test: more than \(fits) change sets") }
            try storage.write(
                storage.prepare(try DocumentEncoder().encode(note(id)), id: .string(id)), mode: .insert,
                in: &transaction)
            return pending + 1
        }
    }
}
