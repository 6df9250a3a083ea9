import TestSupport
import Foundation
import Synchronization
import Testing
@testable import LMDB

/// A read transaction that a yield callback can end: the callback takes it from here.
private final class HeldTransaction: Sendable {
    let transaction = Mutex<ReadTransaction?>(nil)
}

@Suite("Registered readers and bounded resizes")
struct ReaderRegistrationTests {
    @Test("readers() lists registered transactions with label and age, and short reads without")
    func readersAreListed() throws {
        try withTemporaryDirectory { path in
            let env = try Environment.open(path: path)
            let db = try env.openDatabase(named: "kv", options: .create)
            try env.write { try $0.put(bytes("v"), forKey: bytes("k"), in: db) }
            let held = try env.beginRead(registering: .init(label: "the test's snapshot"))
            let slots = try env.read { _ in try env.readers() }
            let mine = slots.filter { $0.isThisProcess && $0.snapshotID != nil }
            #expect(mine.count == 2, "\(slots)")
            #expect(
                mine.contains { $0.label == "the test's snapshot" && $0.age != nil && $0.snapshotID == held.snapshotID }
            )
            #expect(mine.contains { $0.label == nil && $0.age == nil }, "the short read is listed without a label")
            held.end()
            #expect(try env.readers().allSatisfy { $0.label == nil })
        }
    }

    @Test("a resize waits a bounded time for a reader that cannot yield, names it, then fails at once until it ends")
    func resizeBlockedByHeldReader() throws {
        try withTemporaryDirectory { path in
            let env = try Environment.open(path: path, configuration: .init(mapSize: 1 << 20))
            var held: ReadTransaction? = try env.beginRead()
            let error = #expect(throws: LMDBError.self) {
                try env.setMapSize(2 << 20, waitingAtMost: .milliseconds(50))
            }
            #expect(error?.code == .mapResizeBlocked)
            #expect(
                error?.context.contains("a read transaction begun with Environment.beginRead() opened") == true,
                "\(String(describing: error))")
            let again = #expect(throws: LMDBError.self) { try env.setMapSize(2 << 20, waitingAtMost: .seconds(600)) }
            #expect(again?.context.contains("held back the last resize") == true, "\(String(describing: again))")
            let wasHeld = held != nil
            #expect(wasHeld)
            held = nil
            try env.setMapSize(2 << 20, waitingAtMost: .seconds(60))
            #expect(try env.info().mapSize == 2 << 20)
        }
    }

    @Test("a resize asks a registered reader to yield, and proceeds once it has")
    func resizeAfterYield() throws {
        try withTemporaryDirectory { path in
            let env = try Environment.open(path: path, configuration: .init(mapSize: 1 << 20))
            let box = HeldTransaction()
            let reasons = Mutex<[Environment.YieldReason]>([])
            let registration = Environment.ReaderRegistration(label: "yielding") { reason in
                reasons.withLock { $0.append(reason) }
                box.transaction.withLock { $0 = nil }
            }
            var transaction: ReadTransaction? = try env.beginRead(registering: registration)
            box.transaction.withLock { swap(&$0, &transaction) }
            try env.setMapSize(4 << 20, waitingAtMost: .seconds(60))
            #expect(try env.info().mapSize == 4 << 20)
            #expect(reasons.withLock { $0 } == [.mapResize(toBytes: 4 << 20)])
        }
    }

    @Test("yieldExpiredReaders asks only registered readers past their max age")
    func expiredReadersYield() throws {
        try withTemporaryDirectory { path in
            let env = try Environment.open(path: path)
            let asked = Mutex<[Environment.YieldReason]>([])
            let old = try env.beginRead(
                registering: .init(label: "old", maxAge: .zero) { reason in asked.withLock { $0.append(reason) } })
            let young = try env.beginRead(
                registering: .init(label: "young", maxAge: .seconds(3_600)) { _ in
                    Issue.record("a reader within its max age was asked to yield")
                })
            usleep(1_000)
            #expect(env.yieldExpiredReaders() == 1)
            #expect(asked.withLock { $0 } == [.ageLimit(.zero)])
            old.end()
            young.end()
        }
    }
}
