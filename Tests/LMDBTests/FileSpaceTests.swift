import TestSupport
import Foundation
import Testing
@testable import LMDB

@Suite("Data file space")
struct FileSpaceTests {
    @Test("extending writes zeros after the file's end only, and LMDB ignores them")
    func zerosAfterTheEnd() throws {
        try withTemporaryDirectory { path in
            let file = path + "/data.mdb"
            do {
                let env = try Environment.open(path: path)
                let db = try env.openDatabase(named: "things", options: .create)
                try env.write { txn in
                    for index in 0..<200 { try txn.put(bytes("value \(index)"), forKey: bytes("key \(index)"), in: db) }
                }
                let before = try Data(contentsOf: URL(fileURLWithPath: file))
                let target = before.count + (300 << 10) + 123
                do {
                    var txn = try env.beginWrite()
                    #expect(try txn.dataFileSize() == before.count)
                    #expect(try txn.extendDataFile(to: target) == target)
                    #expect(try txn.dataFileSize() == target)
                    // Already long enough: nothing is written.
                    #expect(try txn.extendDataFile(to: before.count) == target)
                    try txn.put(bytes("uncommitted"), forKey: bytes("key x"), in: db)
                    txn.abort()
                }
                let after = try Data(contentsOf: URL(fileURLWithPath: file))
                #expect(after.count == target)
                #expect(after.prefix(before.count) == before, "bytes before the old end changed")
                #expect(after.dropFirst(before.count).allSatisfy { $0 == 0 }, "the new space is not all zeros")
                #expect(try env.bytesInUse() <= before.count)

                // Commits grow into the zeros; the environment reads everything back.
                try env.write { txn in
                    for index in 200..<2_000 {
                        try txn.put(bytes("value \(index)"), forKey: bytes("key \(index)"), in: db)
                    }
                }
                #expect(try env.bytesInUse() > before.count, "the commit did not grow into the extended space")
            }
            let env = try Environment.open(path: path)
            let db = try env.openDatabase(named: "things")
            let (values, uncommitted) = try env.read { txn in
                (
                    try (0..<2_000).map { try txn.value(forKey: bytes("key \($0)"), in: db) },
                    try txn.value(forKey: bytes("key x"), in: db)
                )
            }
            #expect(values == (0..<2_000).map { bytes("value \($0)") })
            #expect(uncommitted == nil)
            // A copy holds the pages in use, not the zeros after them.
            let copy = path + "/copy"
            try FileManager.default.createDirectory(atPath: copy, withIntermediateDirectories: false)
            try env.copy(to: copy)
            let copied = try FileManager.default.attributesOfItem(atPath: copy + "/data.mdb")[.size] as? Int
            #expect(copied == (try env.bytesInUse()))
        }
    }

    @Test("pages a transaction put past the file's end before extending are committed over the zeros, whole")
    func extendAfterWrites() throws {
        try withTemporaryDirectory { path in
            do {
                let env = try Environment.open(path: path)
                let db = try env.openDatabase(named: "things", options: .create)
                try env.write { txn in try txn.put(bytes("first"), forKey: bytes("key first"), in: db) }
                let before = try env.write { txn in try txn.dataFileSize() }
                try env.write { txn in
                    // Enough to need pages past the file's end.
                    for index in 0..<3_000 {
                        try txn.put(bytes("value \(index)"), forKey: bytes("key \(index)"), in: db)
                    }
                    let extended = try txn.extendDataFile(to: before + (512 << 10))
                    #expect(extended >= before + (512 << 10))
                }
                #expect(try env.bytesInUse() > before, "the commit used no page past the old end")
            }
            let env = try Environment.open(path: path)
            let db = try env.openDatabase(named: "things")
            let values = try env.read { txn in try (0..<3_000).map { try txn.value(forKey: bytes("key \($0)"), in: db) }
            }
            #expect(values == (0..<3_000).map { bytes("value \($0)") })
            #expect(try env.read { try $0.value(forKey: bytes("key first"), in: db) } == bytes("first"))
        }
    }
}
