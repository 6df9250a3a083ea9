import TestSupport
import Foundation
import Testing
@testable import LMDB

@Suite("Cursors")
struct CursorTests {
    @Test("seek at or after lands on the first key not less than the target, in byte order")
    func seekAtOrAfter() throws {
        try withTemporaryDirectory { path in
            let env = try Environment.open(path: path)
            let db = try env.openDatabase(named: "ordered", options: .create)
            let keys: [[UInt8]] = [[0x01], [0x01, 0x00], [0x02], [0x10, 0xFF], [0x11]]
            try env.write { txn throws in
                for key in keys.shuffled() { try txn.put(key, forKey: key, in: db) }
            }
            try env.read { txn throws in
                try txn.withCursor(on: db) { cursor throws in
                    #expect(try cursor.seek(atOrAfter: [0x01])?.key == [0x01])
                    #expect(try cursor.seek(atOrAfter: [0x01, 0x00, 0x00])?.key == [0x02])
                    #expect(try cursor.seek(atOrAfter: [0x03])?.key == [0x10, 0xFF])
                    #expect(try cursor.move(.next)?.key == [0x11])
                    #expect(try cursor.move(.next) == nil)
                    #expect(try cursor.seek(atOrAfter: [0x12]) == nil)
                    #expect(try cursor.seek(to: [0x02])?.key == [0x02])
                    #expect(try cursor.seek(to: [0x03]) == nil)
                    #expect(try cursor.move(.last)?.key == [0x11])
                    #expect(try cursor.move(.previous)?.key == [0x10, 0xFF])
                    #expect(try cursor.move(.first)?.key == [0x01])
                    #expect(try cursor.move(.previous) == nil)
                }
            }
        }
    }

    @Test("a cursor appends keys in order, refuses one out of order, and puts anywhere without append")
    func cursorAppend() throws {
        try withTemporaryDirectory { path in
            let env = try Environment.open(path: path)
            let db = try env.openDatabase(named: "appended", options: .create)
            try env.write { txn throws in
                try txn.withCursor(on: db) { cursor throws in
                    for i in 0..<2_000 {
                        let key: [UInt8] = [UInt8(i >> 8), UInt8(i & 0xFF)]
                        try key.withUnsafeBytes { key in try cursor.put(key, forKey: key, options: .append) }
                    }
                    let error = #expect(throws: LMDBError.self) {
                        try [UInt8]([0, 5]).withUnsafeBytes { try cursor.put($0, forKey: $0, options: .append) }
                    }
                    #expect(error?.code == .keyExists)
                    try [UInt8]([0, 5, 1]).withUnsafeBytes { try cursor.put($0, forKey: $0) }
                }
            }
            try env.read { txn throws in
                #expect(try txn.count(of: db) == 2_001)
                #expect(try txn.value(forKey: [7, 0xCF], in: db) == [7, 0xCF])
                #expect(try txn.value(forKey: [0, 5, 1], in: db) == [0, 5, 1])
            }
        }
    }

    @Test("duplicate-sorted navigation moves within and across keys")
    func duplicates() throws {
        try withTemporaryDirectory { path in
            let env = try Environment.open(path: path)
            let db = try env.openDatabase(named: "multi", options: [.create, .duplicateSort])
            try env.write { txn throws in
                for value in ["c", "a", "b"] { try txn.put(bytes(value), forKey: bytes("k1"), in: db) }
                for value in ["y", "x"] { try txn.put(bytes(value), forKey: bytes("k2"), in: db) }
                let error = #expect(throws: LMDBError.self) {
                    try txn.put(bytes("a"), forKey: bytes("k1"), in: db, options: .noDuplicateData)
                }
                #expect(error?.code == .keyExists)
            }
            try env.read { txn throws in
                #expect(try txn.count(of: db) == 5)
                try txn.withCursor(on: db) { cursor throws in
                    #expect(try cursor.seek(to: bytes("k1"))?.value == bytes("a"))
                    #expect(try cursor.duplicateCount() == 3)
                    #expect(try cursor.move(.nextDuplicate)?.value == bytes("b"))
                    #expect(try cursor.move(.lastDuplicate)?.value == bytes("c"))
                    #expect(try cursor.move(.nextDuplicate) == nil)
                    #expect(try cursor.move(.nextKey) == Cursor.Entry(key: bytes("k2"), value: bytes("x")))
                    #expect(try cursor.move(.previousKey) == Cursor.Entry(key: bytes("k1"), value: bytes("c")))
                    #expect(try cursor.move(.firstDuplicate)?.value == bytes("a"))
                    #expect(try cursor.seek(to: bytes("k2"), valueAtOrAfter: bytes("xa"))?.value == bytes("y"))
                    #expect(try cursor.seek(to: bytes("k2"), valueAtOrAfter: bytes("z")) == nil)
                }
            }
            try env.write { txn throws in
                #expect(try txn.delete(bytes("k1"), value: bytes("b"), in: db))
                #expect(try txn.delete(bytes("k1"), value: bytes("b"), in: db) == false)
            }
            #expect(try env.read { try $0.count(of: db) } == 4)
            // A duplicate-sorted value is limited like a key.
            let error = #expect(throws: LMDBError.self) {
                try env.write { txn in try txn.put([UInt8](repeating: 1, count: 600), forKey: bytes("k3"), in: db) }
            }
            #expect(error?.code == .badValueSize)
        }
    }

    @Test("borrowed bytes are lent inside the closure, and cursors delete in write transactions")
    func borrowedBytesAndDelete() throws {
        try withTemporaryDirectory { path in
            let env = try Environment.open(path: path)
            let db = try env.openDatabase(named: "kv", options: .create)
            try env.write { txn throws in
                for i in 0..<10 { try txn.put([UInt8(i)], forKey: [UInt8(i)], in: db) }
                try txn.withCursor(on: db) { cursor throws in
                    var sum = 0
                    _ = try cursor.withSeek(atOrAfter: [5]) { key, value in sum += Int(key[0]) + Int(value[0]) }
                    #expect(sum == 10)
                    try cursor.deleteCurrent()
                }
            }
            #expect(try env.read { try $0.value(forKey: [5], in: db) } == nil)
            #expect(try env.read { try $0.count(of: db) } == 9)
            try env.write { txn in try txn.empty(db) }
            #expect(try env.read { try $0.count(of: db) } == 0)
        }
    }
}
