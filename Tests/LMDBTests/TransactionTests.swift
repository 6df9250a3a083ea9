import TestSupport
import Foundation
import Testing
@testable import LMDB

@Suite("Transactions")
struct TransactionTests {
    @Test("put, get, overwrite and delete")
    func putGetDelete() throws {
        try withTemporaryDirectory { path in
            let env = try Environment.open(path: path)
            let db = try env.openDatabase(named: "kv", options: .create)
            try env.write { txn throws in
                try txn.put(bytes("one"), forKey: bytes("a"), in: db)
                try txn.put(bytes("two"), forKey: bytes("b"), in: db)
                try txn.put(bytes("uno"), forKey: bytes("a"), in: db)
            }
            try env.read { txn throws in
                #expect(try txn.value(forKey: bytes("a"), in: db) == bytes("uno"))
                #expect(try txn.value(forKey: bytes("b"), in: db) == bytes("two"))
                #expect(try txn.value(forKey: bytes("c"), in: db) == nil)
                #expect(try txn.count(of: db) == 2)
            }
            let deleted = try env.write { txn throws in
                (try txn.delete(bytes("a"), in: db), try txn.delete(bytes("missing"), in: db))
            }
            #expect(deleted == (true, false))
            #expect(try env.read { try $0.value(forKey: bytes("a"), in: db) } == nil)
        }
    }

    @Test("a no-overwrite put of a present key reports keyExists and keeps the old value")
    func noOverwrite() throws {
        try withTemporaryDirectory { path in
            let env = try Environment.open(path: path)
            let db = try env.openDatabase(named: "kv", options: .create)
            try env.write { txn in try txn.put(bytes("first"), forKey: bytes("k"), in: db, options: .noOverwrite) }
            let error = #expect(throws: LMDBError.self) {
                try env.write { txn in try txn.put(bytes("second"), forKey: bytes("k"), in: db, options: .noOverwrite) }
            }
            #expect(error?.code == .keyExists)
            #expect(try env.read { try $0.value(forKey: bytes("k"), in: db) } == bytes("first"))
        }
    }

    @Test("a key over 511 bytes is the named error and writes nothing")
    func oversizedKey() throws {
        try withTemporaryDirectory { path in
            let env = try Environment.open(path: path)
            let db = try env.openDatabase(named: "kv", options: .create)
            let longKey = [UInt8](repeating: 0x61, count: 512)
            let error = #expect(throws: LMDBError.self) {
                try env.write { txn throws in
                    try txn.put(bytes("fine"), forKey: bytes("ok"), in: db)
                    try txn.put(bytes("v"), forKey: longKey, in: db)
                }
            }
            #expect(error?.code == .badValueSize)
            #expect(error?.context.contains("512 bytes") == true)
            #expect(error?.context.contains("kv") == true)
            // The whole transaction was abandoned: not even the valid put landed.
            #expect(try env.read { try $0.count(of: db) } == 0)
            // Exactly 511 bytes is allowed.
            let maxKey = [UInt8](repeating: 0x62, count: 511)
            try env.write { txn in try txn.put(bytes("edge"), forKey: maxKey, in: db) }
            #expect(try env.read { try $0.value(forKey: maxKey, in: db) } == bytes("edge"))
        }
    }

    @Test("a throwing write closure writes nothing")
    func throwingWriteAborts() throws {
        struct Boom: Error {}
        try withTemporaryDirectory { path in
            let env = try Environment.open(path: path)
            let db = try env.openDatabase(named: "kv", options: .create)
            #expect(throws: Boom.self) {
                try env.write { txn throws in
                    try txn.put(bytes("v"), forKey: bytes("k"), in: db)
                    throw Boom()
                }
            }
            #expect(try env.read { try $0.value(forKey: bytes("k"), in: db) } == nil)
        }
    }

    @Test("a nested transaction aborted alone while its parent commits")
    func nestedAbort() throws {
        struct Rejected: Error {}
        try withTemporaryDirectory { path in
            let env = try Environment.open(path: path)
            let db = try env.openDatabase(named: "kv", options: .create)
            try env.write { txn throws in
                try txn.put(bytes("parent"), forKey: bytes("p"), in: db)
                try txn.nested { child in try child.put(bytes("kept"), forKey: bytes("good"), in: db) }
                #expect(throws: Rejected.self) {
                    try txn.nested { child in
                        try child.put(bytes("lost"), forKey: bytes("bad"), in: db)
                        try child.put(bytes("overwritten"), forKey: bytes("p"), in: db)
                        throw Rejected()
                    }
                }
                // The parent sees its own and the committed child's writes, not the aborted one's.
                #expect(try txn.value(forKey: bytes("p"), in: db) == bytes("parent"))
                #expect(try txn.value(forKey: bytes("bad"), in: db) == nil)
            }
            try env.read { txn throws in
                #expect(try txn.value(forKey: bytes("p"), in: db) == bytes("parent"))
                #expect(try txn.value(forKey: bytes("good"), in: db) == bytes("kept"))
                #expect(try txn.value(forKey: bytes("bad"), in: db) == nil)
            }
        }
    }

    @Test("a read transaction keeps its snapshot while a writer commits")
    func snapshotIsolation() throws {
        try withTemporaryDirectory { path in
            let env = try Environment.open(path: path)
            let db = try env.openDatabase(named: "kv", options: .create)
            try env.write { txn in try txn.put(bytes("old"), forKey: bytes("k"), in: db) }
            let snapshot = try env.beginRead()
            try env.write { txn in try txn.put(bytes("new"), forKey: bytes("k"), in: db) }
            #expect(try snapshot.value(forKey: bytes("k"), in: db) == bytes("old"))
            snapshot.end()
            #expect(try env.read { try $0.value(forKey: bytes("k"), in: db) } == bytes("new"))
        }
    }

    @Test("many concurrent reader tasks see consistent snapshots while one writer commits")
    func concurrentReaders() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let env = try Environment.open(path: directory.path)
        let db = try env.openDatabase(named: "pair", options: .create)
        let commits = 300
        try env.write { txn throws in
            try txn.put(bytes("0"), forKey: bytes("a"), in: db)
            try txn.put(bytes("0"), forKey: bytes("b"), in: db)
        }
        let readsChecked = try await withThrowingTaskGroup(of: Int.self) { group in
            group.addTask {
                for i in 1...commits {
                    try env.write { txn throws in
                        try txn.put(bytes("\(i)"), forKey: bytes("a"), in: db)
                        try txn.put(bytes("\(i)"), forKey: bytes("b"), in: db)
                    }
                    if i % 16 == 0 { await Task.yield() }
                }
                return 0
            }
            for _ in 0..<16 {
                group.addTask {
                    var checked = 0
                    var last = 0
                    while last < commits {
                        let (a, b) = try env.read { txn throws in
                            (try txn.value(forKey: bytes("a"), in: db), try txn.value(forKey: bytes("b"), in: db))
                        }
                        // Both keys were written by one transaction: a snapshot sees both or neither.
                        #expect(a == b)
                        let seen = Int(String(decoding: a ?? [], as: UTF8.self)) ?? -1
                        #expect(seen >= last) // snapshots never go back in time
                        last = seen
                        checked += 1
                        await Task.yield() // hop threads between transactions
                    }
                    return checked
                }
            }
            return try await group.reduce(0, +)
        }
        #expect(readsChecked >= 16)
        #expect(env.gate.liveCount == 0)
    }
}
