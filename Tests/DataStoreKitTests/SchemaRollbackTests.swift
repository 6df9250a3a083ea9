import DataStoreCore
import Foundation
import LMDB
import Synchronization
import Testing
@testable import DataStoreKit

/// A schema change changes the collection's in-memory index list inside its transaction; when it
/// does not commit, the list must be put back (`ChangeSet.rollBack`), or later writes stop
/// maintaining an index the disk still has (or maintain one it does not).
@Suite("Roll-back of effects outside the transaction")
struct SchemaRollbackTests {
    /// What a change set did outside its transaction, and what its roll-back saw.
    struct Effects: Sendable {
        var applied = 0
        var rolledBack = 0
        var rollBackThreads: [String] = []
    }

    @Test(
        "a change set that fails is rolled back once, on the writer thread, before its caller resumes; one that commits is not"
    )
    func rollBackOnFailure() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let effects = Mutex(Effects())
        let rollBack: @Sendable () -> Void = {
            // Slow, so a caller resumed before the roll-back ends would see `applied` still set.
            Thread.sleep(forTimeInterval: 0.05)
            effects.withLock {
                $0.applied = 0
                $0.rolledBack += 1
                $0.rollBackThreads.append(Thread.current.name ?? "?")
            }
        }
        struct Refused: Error {}
        await #expect(throws: Refused.self) {
            _ = try await temporary.store.writer.submit(estimatedBytes: 0, exclusive: true, rollBack: rollBack) { _ in
                effects.withLock { $0.applied += 1 }
                throw Refused()
            }
        }
        #expect(effects.withLock { $0.applied } == 0, "the caller resumed before the roll-back")
        #expect(effects.withLock { $0.rolledBack } == 1)
        #expect(effects.withLock { $0.rollBackThreads } == ["DataStoreWriter"])

        _ = try await temporary.store.writer.submit(estimatedBytes: 0, exclusive: true, rollBack: rollBack) { _ in
            effects.withLock { $0.applied += 1 }
        }
        #expect(effects.withLock { ($0.applied, $0.rolledBack) } == (1, 1), "a committed change set was rolled back")
    }

    @Test("a change set whose batch cannot commit (map full, may not grow) is rolled back")
    func rollBackOnCommitFailure() async throws {
        let temporary = try TemporaryStore(
            options: .init(mapSize: 256 * 1024, writerLimits: .init(maxMapSize: 256 * 1024)))
        defer { temporary.remove() }
        let database = try temporary.store.environment.openDatabase(named: "scratch", options: .create)
        let effects = Mutex(Effects())
        let error = await #expect(throws: DataStoreError.self) {
            _ = try await temporary.store.writer.submit(
                estimatedBytes: 0, exclusive: true,
                rollBack: {
                    effects.withLock { $0.rolledBack += 1 }
                }
            ) { transaction in
                effects.withLock { $0.applied += 1 }
                try transaction.put([UInt8](repeating: 7, count: 1 << 20), forKey: Array("big".utf8), in: database)
            }
        }
        #expect(error?.code == .storage)
        #expect(effects.withLock { ($0.applied, $0.rolledBack) } == (1, 1))
    }

    @Test("dropping an index in a full map fails, and the index stays on disk, maintained and used")
    func failedDropKeepsIndex() async throws {
        let temporary = try TemporaryStore(
            options: .init(mapSize: 256 * 1024, writerLimits: .init(maxMapSize: 256 * 1024)))
        defer { temporary.remove() }
        let indexed = [IndexDefinition("created_ts")]
        let notes = try await temporary.store.collection(Note.self, idField: "id", indexes: indexed)
        var dropError: DataStoreError?
        let stored = try await fillMap(of: temporary.store, with: notes) {
            dropError = await #expect(throws: DataStoreError.self) {
                _ = try await temporary.store.collection(
                    Note.self, idField: "id", indexes: [], undeclaredIndexes: .drop)
            }
        }
        #expect(dropError?.code == .storage, "\(String(describing: dropError))")
        #expect(notes.storage.indexes.map(\.name) == ["created_ts"], "the failed drop left the index list changed")

        // Make room, write through the index, and read through it.
        for id in stored.prefix(20) { _ = try await notes.remove(id: .string(id)) }
        _ = try await notes.add(object: note("late", ts: 1e9))
        let plan = try notes.explain(params: ["created_ts >=": 1e9], options: nil)
        guard case .indexScan(let scan) = plan.access else {
            Issue.record("not an index scan: \(plan)")
            return
        }
        #expect(scan.index.name == "created_ts")
        #expect(try await notes.query(params: ["created_ts >=": 1e9], options: nil).map(\.id) == ["late"])
        try expectConsistent(temporary.store)
    }
}
