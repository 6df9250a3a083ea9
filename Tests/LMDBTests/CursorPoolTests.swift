import Foundation
import TestSupport
import Testing
@testable import LMDB

@Suite("Cursor pools")
struct CursorPoolTests {
    @Test("a pooled cursor is renewed for each read and sees that read's snapshot")
    func renewedPerSnapshot() throws {
        try withTemporaryDirectory { path in
            let env = try Environment.open(path: path)
            let db = try env.openDatabase(named: "pooled", options: .create)
            try env.write { txn throws in try txn.put([1], forKey: [0x10], in: db) }
            let pool = CursorPool(database: db)
            #expect(pool.idleCount == 0)
            let first = try env.read { txn throws in
                try txn.withCursor(from: pool) { cursor throws in try cursor.seek(atOrAfter: [0x00])?.key }
            }
            #expect(first == [0x10])
            #expect(pool.idleCount == 1)
            try env.write { txn throws in try txn.put([2], forKey: [0x08], in: db) }
            // The same cursor, renewed: it finds the key committed after its last use.
            let second = try env.read { txn throws in
                try txn.withCursor(from: pool) { cursor throws in
                    #expect(pool.idleCount == 0)
                    return try cursor.seek(atOrAfter: [0x00])?.key
                }
            }
            #expect(second == [0x08])
            #expect(pool.idleCount == 1)
        }
    }

    @Test("cursors lent at once are distinct, each moves on its own, and the pool keeps at most its limit")
    func nestedAndBounded() throws {
        try withTemporaryDirectory { path in
            let env = try Environment.open(path: path)
            let db = try env.openDatabase(named: "pooled", options: .create)
            try env.write { txn throws in
                for key in UInt8(0)..<20 { try txn.put([key], forKey: [key], in: db) }
            }
            let pool = CursorPool(database: db)
            try env.read { txn throws in try Self.nest(0, in: txn, pool) }
            #expect(pool.idleCount == CursorPool.limit)
        }
    }

    /// Lends a cursor from `pool` at each depth, up to three more than the pool keeps, each
    /// inside the one before.
    static func nest(_ depth: Int, in txn: borrowing ReadTransaction, _ pool: CursorPool) throws {
        guard depth < CursorPool.limit + 3 else { return }
        try txn.withCursor(from: pool) { cursor throws in
            #expect(try cursor.seek(atOrAfter: [UInt8(depth)])?.key == [UInt8(depth)])
            try nest(depth + 1, in: txn, pool)
            // Still where it was, whatever the cursors lent inside moved to.
            #expect(try cursor.move(.next)?.key == [UInt8(depth + 1)])
        }
    }

    @Test("a pooled cursor outlives the transactions it served, and is used again after a failed one")
    func acrossTransactions() throws {
        try withTemporaryDirectory { path in
            let env = try Environment.open(path: path)
            let db = try env.openDatabase(named: "pooled", options: .create)
            try env.write { txn throws in try txn.put([1], forKey: [1], in: db) }
            let pool = CursorPool(database: db)
            struct Stop: Error {}
            #expect(throws: Stop.self) {
                try env.read { txn throws in try txn.withCursor(from: pool) { _ throws in throw Stop() } }
            }
            #expect(pool.idleCount == 1)
            for _ in 0..<50 {
                let found = try env.read { txn throws in
                    try txn.withCursor(from: pool) { cursor throws in try cursor.move(.first)?.value }
                }
                #expect(found == [1])
            }
            #expect(pool.idleCount == 1)
        }
    }
}
