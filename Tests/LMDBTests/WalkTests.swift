import Foundation
import TestSupport
import Testing

@testable import LMDB

// `walk` prefetches each leaf page it moves into; these check that what it lends is unchanged by
// that: every entry, in key order, across many pages, from any start, in read and write
// transactions (where changed pages are heap copies, not the map's pages).
@Suite("Cursor walks")
struct WalkTests {
    /// Keys 0…count-1 as 4-byte big-endian numbers (so byte order is number order), inserted in a
    /// scrambled order so that leaf pages split and lie out of key order in the file, and values
    /// of `valueSize` bytes that name their key.
    /// Runs `body` with a fresh environment and its database "walked" holding those entries.
    private func withFilled(
        count: Int, valueSize: Int, _ body: (Environment, Database) throws -> Void
    ) throws {
        try withTemporaryDirectory { path in
            let env = try Environment.open(path: path)
            let db = try env.openDatabase(named: "walked", options: .create)
            try env.write { txn throws in
                for number in (0..<count).map({ ($0 * 7_919) % count }) {
                    try txn.put(value(number, size: valueSize), forKey: key(number), in: db)
                }
            }
            try body(env, db)
        }
    }

    private func key(_ number: Int) -> [UInt8] { withUnsafeBytes(of: UInt32(number).bigEndian) { Array($0) } }

    private func value(_ number: Int, size: Int) -> [UInt8] {
        (0..<size).map { UInt8(truncatingIfNeeded: number &+ $0) }
    }

    /// The numbers of the entries the walk lends from `start`, each value checked against the one put.
    private func walked(
        _ txn: borrowing some ReadableTransaction & ~Copyable, _ db: Database, from start: [UInt8]?, valueSize: Int
    ) throws -> [Int] {
        var numbers: [Int] = []
        try txn.walk(db, from: start) { key, stored in
            let number = Int(key.loadUnaligned(as: UInt32.self).bigEndian)
            #expect(Array(stored) == value(number, size: valueSize))
            numbers.append(number)
            return true
        }
        return numbers
    }

    @Test("a walk over many leaf pages lends every entry once, in key order, from any start")
    func manyPages() throws {
        let count = 5_000
        try withFilled(count: count, valueSize: 150) { env, db in
            try env.read { txn throws in
                #expect(try txn.statistics(of: db).leafPages > 100)
                #expect(try walked(txn, db, from: nil, valueSize: 150) == Array(0..<count))
                for start in [1, 999, 2_500, count - 1] {
                    #expect(try walked(txn, db, from: key(start), valueSize: 150) == Array(start..<count))
                }
                #expect(try walked(txn, db, from: key(count), valueSize: 150).isEmpty)
            }
        }
    }

    @Test("a walk stops where its closure says, on any page")
    func stopsEarly() throws {
        try withFilled(count: 3_000, valueSize: 100) { env, db in
            try env.read { txn throws in
                for limit in [1, 17, 1_234] {
                    var seen = 0
                    try txn.walk(db) { _, _ in
                        seen += 1
                        return seen < limit
                    }
                    #expect(seen == limit)
                }
            }
        }
    }

    @Test(
        "an empty start walks from the first key; an over-long start and a throwing body end the walk with their errors"
    )
    func startsAndErrors() throws {
        struct Stop: Error {}
        try withFilled(count: 500, valueSize: 40) { env, db in
            try env.read { txn throws in
                #expect(try walked(txn, db, from: [], valueSize: 40) == Array(0..<500))
                let error = #expect(throws: LMDBError.self) {
                    try txn.walk(db, from: [UInt8](repeating: 1, count: 600)) { _, _ in true }
                }
                #expect(error?.code == .badValueSize)
                var seen = 0
                #expect(throws: Stop.self) {
                    try txn.walk(db) { _, _ in
                        seen += 1
                        if seen == 250 { throw Stop() }
                        return true
                    }
                }
                #expect(seen == 250)
                // The transaction still reads after a walk that threw.
                #expect(try walked(txn, db, from: key(499), valueSize: 40) == [499])
            }
        }
    }

    @Test("a walk in a write transaction lends the entries it changed as well as the others")
    func writeTransaction() throws {
        let count = 4_000
        try withFilled(count: count, valueSize: 120) { env, db in
            try env.write { txn throws in
                // Every third entry rewritten and every fifth deleted: their pages become heap copies.
                for number in stride(from: 0, to: count, by: 3) {
                    try txn.put(value(number, size: 120), forKey: key(number), in: db)
                }
                for number in stride(from: 0, to: count, by: 5) { try txn.delete(key(number), in: db) }
                let expected = (0..<count).filter { $0 % 5 != 0 }
                #expect(try walked(txn, db, from: nil, valueSize: 120) == expected)
                #expect(try walked(txn, db, from: key(2_001), valueSize: 120) == expected.filter { $0 >= 2_001 })
            }
        }
    }

    @Test("values in overflow pages are lent whole")
    func overflowValues() throws {
        try withFilled(count: 200, valueSize: 9_000) { env, db in
            try env.read { txn throws in
                #expect(try walked(txn, db, from: nil, valueSize: 9_000) == Array(0..<200))
            }
        }
    }

    @Test("a transaction knows its environment's page size, a power of two")
    func pageSize() throws {
        try withTemporaryDirectory { path in
            let env = try Environment.open(path: path)
            let size = try env.statistics().pageSize
            #expect(env.pageSize == size)
            #expect(size >= 4_096 && size & (size - 1) == 0)
            try env.read { txn throws in #expect(txn.transactionHandle.pageSize == size) }
        }
    }
}
