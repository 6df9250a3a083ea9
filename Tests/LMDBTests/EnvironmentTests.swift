import TestSupport
import Foundation
import Testing
@testable import LMDB

@Suite("Environment")
struct EnvironmentTests {
    @Test("data persists across close and reopen")
    func persistsAcrossReopen() throws {
        try withTemporaryDirectory { path in
            do {
                let env = try Environment.open(path: path)
                let db = try env.openDatabase(named: "things", options: .create)
                try env.write { txn in try txn.put(bytes("value"), forKey: bytes("key"), in: db) }
            }
            // The first environment is closed now: its last reference is gone.
            let env = try Environment.open(path: path)
            let db = try env.openDatabase(named: "things")
            #expect(try env.read { try $0.value(forKey: bytes("key"), in: db) } == bytes("value"))
        }
    }

    @Test("opening an open path returns the same environment; another configuration is refused")
    func oneEnvironmentPerPath() throws {
        try withTemporaryDirectory { path in
            let first = try Environment.open(path: path)
            let second = try Environment.open(path: path + "/./")
            #expect(first === second)
            let error = #expect(throws: LMDBError.self) {
                _ = try Environment.open(path: path, configuration: .init(flags: .noSync))
            }
            #expect(error?.code == .alreadyOpen)
            #expect(error?.description.contains(path.split(separator: "/").last.map(String.init) ?? "?") == true)
        }
    }

    @Test("a missing directory that may not be created is a named error naming the path")
    func missingDirectory() throws {
        let path = NSTemporaryDirectory() + "datastorekit-missing-\(UUID().uuidString)"
        let error = #expect(throws: LMDBError.self) {
            _ = try Environment.open(path: path, configuration: .init(createDirectory: false))
        }
        #expect(error?.code == .noSuchFile)
        #expect(error?.context.contains(path) == true)
    }

    @Test("a path that cannot be a directory is a clear error naming the path")
    func unusablePath() throws {
        try withTemporaryDirectory { path in
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            let file = path + "/plain-file"
            _ = FileManager.default.createFile(atPath: file, contents: Data("x".utf8))
            let error = #expect(throws: LMDBError.self) { _ = try Environment.open(path: file + "/store") }
            #expect(error?.context.contains(file) == true)
        }
    }

    @Test("a directory whose data file is not an LMDB environment is refused as invalid")
    func notAnEnvironment() throws {
        try withTemporaryDirectory { path in
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            let garbage = Data((0..<16_384).map { UInt8(truncatingIfNeeded: $0 &* 31) })
            _ = FileManager.default.createFile(atPath: path + "/data.mdb", contents: garbage)
            let error = #expect(throws: LMDBError.self) { _ = try Environment.open(path: path) }
            #expect(error?.code == .invalid)
        }
    }

    @Test("a read-only environment serves reads and refuses writes")
    func readOnly() throws {
        try withTemporaryDirectory { path in
            do {
                let env = try Environment.open(path: path)
                let db = try env.openDatabase(named: "things", options: .create)
                try env.write { txn in try txn.put(bytes("v"), forKey: bytes("k"), in: db) }
            }
            let env = try Environment.open(path: path, configuration: .init(flags: .readOnly))
            let db = try env.openDatabase(named: "things")
            #expect(try env.read { try $0.value(forKey: bytes("k"), in: db) } == bytes("v"))
            let error = #expect(throws: LMDBError.self) {
                try env.write { txn in try txn.put(bytes("w"), forKey: bytes("k2"), in: db) }
            }
            #expect(error?.code == .permissionDenied)
            #expect(error?.context.contains("read-only") == true)
            #expect(try env.read { try $0.value(forKey: bytes("k2"), in: db) } == nil)
        }
    }

    @Test("map full on a tiny map is the named error; after growing the map the same write succeeds")
    func mapFullThenGrow() throws {
        try withTemporaryDirectory { path in
            let env = try Environment.open(path: path, configuration: .init(mapSize: 64 * 1024))
            let db = try env.openDatabase(named: "blobs", options: .create)
            let blob = [UInt8](repeating: 7, count: 200 * 1024)
            let error = #expect(throws: LMDBError.self) {
                try env.write { txn in try txn.put(blob, forKey: bytes("big"), in: db) }
            }
            #expect(error?.code == .mapFull)
            #expect(try env.read { try $0.value(forKey: bytes("big"), in: db) } == nil)

            try env.setMapSize(8 * 1024 * 1024)
            try env.write { txn in try txn.put(blob, forKey: bytes("big"), in: db) }
            #expect(try env.read { try $0.value(forKey: bytes("big"), in: db) } == blob)
            #expect(try env.info().mapSize >= 8 * 1024 * 1024)
        }
    }

    @Test("a compacted copy opens and holds the same data")
    func compactedCopy() throws {
        try withTemporaryDirectory { path in
            let env = try Environment.open(path: path + "/source")
            let db = try env.openDatabase(named: "numbers", options: .create)
            try env.write { txn throws in
                for i in 0..<2_000 {
                    try txn.put(bytes("value \(i)"), forKey: bytes(String(format: "%06d", i)), in: db)
                }
            }
            // Free pages for compaction to leave out.
            try env.write { txn throws in
                for i in stride(from: 0, to: 2_000, by: 2) { try txn.delete(bytes(String(format: "%06d", i)), in: db) }
            }
            let copyPath = path + "/copy"
            try FileManager.default.createDirectory(atPath: copyPath, withIntermediateDirectories: true)
            try env.copy(to: copyPath, compact: true)

            let copy = try Environment.open(path: copyPath)
            let copied = try copy.openDatabase(named: "numbers")
            let entries = try copy.read { txn throws in
                try txn.withCursor(on: copied) { cursor throws in
                    var all: [Cursor.Entry] = []
                    while let entry = try cursor.move(.next) { all.append(entry) }
                    return all
                }
            }
            #expect(entries.count == 1_000)
            #expect(entries.first == Cursor.Entry(key: bytes("000001"), value: bytes("value 1")))
            #expect(entries.last == Cursor.Entry(key: bytes("001999"), value: bytes("value 1999")))
            #expect(try copy.bytesInUse() <= env.bytesInUse())
        }
    }

    @Test("info, statistics, stale-reader check and sync answer")
    func maintenance() throws {
        try withTemporaryDirectory { path in
            let env = try Environment.open(path: path)
            let db = try env.openDatabase(named: "x", options: .create)
            try env.write { txn in try txn.put(bytes("v"), forKey: bytes("k"), in: db) }
            let info = try env.info()
            #expect(info.lastTransactionID >= 2)
            #expect(info.maxReaders == 126)
            #expect(try env.statistics().entries == 1) // the main database lists "x"
            #expect(try env.clearStaleReaders() == 0)
            try env.sync()
            #expect(env.maxKeySize == 511)
        }
    }
}
