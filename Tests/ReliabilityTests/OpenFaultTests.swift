// Opening a store whose files are damaged, whose disk is full, or whose first open was cut short:
// a typed error or an empty store, never a SIGBUS, never a half-made store left behind.
import DataStoreCore
import DataStoreKit
import Foundation
import TestSupport
import LMDB
import Testing

@Suite("Opening damaged, full or half-made stores")
struct OpenFaultTests {
    struct Item: Codable, Equatable, Sendable {
        var id: String
        var text: String
    }

    /// A store directory holding `count` items of 1 KiB, made in another directory and copied, so
    /// this process never opened the path it returns (LMDB: one environment per path per process).
    static func copiedStore(count: Int) async throws -> String {
        let source = temporaryStorePath("open-source")
        do {
            let store = try DataStore.open(path: source)
            let items = try await store.collection(Item.self, name: "items", idField: "id")
            try await items.add(
                contentsOf: (0..<count).map { Item(id: "i\($0)", text: String(repeating: "x", count: 1_024)) })
            store.close()
        }
        defer { try? FileManager.default.removeItem(atPath: source) }
        return try copy(source)
    }

    /// A new directory holding a copy of `path`'s data file.
    static func copy(_ path: String) throws -> String {
        let copy = temporaryStorePath("open-copy")
        try FileManager.default.createDirectory(atPath: copy, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: path + "/data.mdb", toPath: copy + "/data.mdb")
        return copy
    }

    @Test("a data file shorter than its meta page says is refused at open, naming both sizes")
    func truncatedDataFile() async throws {
        let path = try await Self.copiedStore(count: 200)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let data = path + "/data.mdb"
        let full = try #require(try FileManager.default.attributesOfItem(atPath: data)[.size] as? Int)
        try #require(full > 65_536, "the store must span many pages")
        #expect(truncate(data, 8_192) == 0)
        for readOnly in [false, true] {
            let error = #expect(throws: DataStoreError.self) {
                try DataStore.open(path: path, options: .init(readOnly: readOnly))
            }
            #expect(error?.code == .storage)
            #expect((error?.underlying as? LMDBError)?.code == .truncatedFile)
            #expect(error?.message.contains("data.mdb is 8192 bytes") == true, "\(String(describing: error))")
            #expect(error?.message.contains("reaches \(full)") == true || error?.message.contains("reaches") == true)
        }
        #expect(
            try FileManager.default.attributesOfItem(atPath: data)[.size] as? Int == 8_192, "the file is left as it was"
        )
    }

    @Test("an environment with no database, as a first open cut short leaves it, opens read-only as an empty store")
    func environmentWithoutDatabases() async throws {
        let path = temporaryStorePath("half-made")
        defer { try? FileManager.default.removeItem(atPath: path) }
        // What a kill between LMDB's creation of its files and the store's first commit leaves.
        weak var released: Environment?
        do {
            let environment = try Environment.open(path: path)
            #expect(try environment.statistics().entries == 0)
            released = environment
        }
        #expect(released == nil, "the environment is closed")
        // A process keeps one environment per path, opened one way: the reader gets a copy.
        let copy = try Self.copy(path)
        defer { try? FileManager.default.removeItem(atPath: copy) }
        do {
            let reader = try DataStore.open(path: copy, options: .init(readOnly: true))
            #expect(try reader.collectionNames() == [])
            #expect(try reader.check().isEmpty)
            #expect(try reader.statistics().collections.isEmpty)
            let missing = await #expect(throws: DataStoreError.self) {
                _ = try await reader.collection(Item.self, name: "items", idField: "id")
            }
            #expect(missing?.code == .notFound)
        }
        // A writable open then makes it a store like any other.
        let store = try DataStore.open(path: path)
        let items = try await store.collection(Item.self, name: "items", idField: "id")
        _ = try await items.add(object: Item(id: "a", text: "after"))
        #expect(try await items.get(id: "a").text == "after")
    }

    @Test(
        "a creation a power cut tore (a meta page unwritten, nothing committed) is made anew; a store with commits is not"
    )
    func tornCreation() async throws {
        let fresh = temporaryStorePath("torn-source")
        defer { try? FileManager.default.removeItem(atPath: fresh) }
        do { _ = try Environment.open(path: fresh) } // LMDB writes both meta pages, transaction 0
        let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))
        let initial = try Data(contentsOf: URL(fileURLWithPath: fresh + "/data.mdb"))
        for zeroed in [0, 1] {
            var torn = initial
            torn.replaceSubrange((zeroed * pageSize)..<((zeroed + 1) * pageSize), with: Data(count: pageSize))
            let path = temporaryStorePath("torn")
            defer { try? FileManager.default.removeItem(atPath: path) }
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            try torn.write(to: URL(fileURLWithPath: path + "/data.mdb"))
            let copy = try Self.copy(path)
            defer { try? FileManager.default.removeItem(atPath: copy) }
            let reader = #expect(throws: DataStoreError.self) {
                try DataStore.open(path: copy, options: .init(readOnly: true))
            }
            #expect(reader?.message.contains("creation was cut short") == true, "\(String(describing: reader))")
            let store = try DataStore.open(path: path)
            let items = try await store.collection(Item.self, name: "items", idField: "id")
            _ = try await items.add(object: Item(id: "a", text: "made anew"))
            #expect(try store.check().isEmpty)
        }
        // A store with a commit behind its valid meta page is never replaced, whatever the other page holds.
        let committed = try await Self.copiedStore(count: 3)
        defer { try? FileManager.default.removeItem(atPath: committed) }
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: committed + "/data.mdb"))
        try handle.write(contentsOf: Data(count: pageSize))
        try handle.close()
        let size = try FileManager.default.attributesOfItem(atPath: committed + "/data.mdb")[.size] as? Int
        #expect(throws: DataStoreError.self) { try DataStore.open(path: committed) }
        #expect(try FileManager.default.attributesOfItem(atPath: committed + "/data.mdb")[.size] as? Int == size)
    }

    @Test(
        "a new store on a full disk is a typed no-space error and leaves nothing behind",
        .enabled(if: SmallDisk.canMount, "needs root to mount a 4 MiB tmpfs"))
    func fullDisk() async throws {
        let disk = try SmallDisk(bytes: 4 << 20)
        defer { disk.unmount() }
        // Free space for nothing, for the lock file alone, and for the files but not the first commit.
        for free in [0, 8_192] {
            try disk.fill(leaving: free)
            let path = disk.path + "/stores/new-\(free)"
            let error = #expect(throws: DataStoreError.self) { try DataStore.open(path: path) }
            #expect(error?.code == .storage)
            #expect((error?.underlying as? LMDBError)?.code == .noSpace, "\(String(describing: error))")
            #expect(!FileManager.default.fileExists(atPath: path), "nothing half-made is left at \(path)")
            #expect(!FileManager.default.fileExists(atPath: disk.path + "/stores"))
        }
        try disk.fill(leaving: 20_480)
        let path = disk.path + "/new"
        let error = #expect(throws: DataStoreError.self) { try DataStore.open(path: path) }
        #expect(error?.code == .storage)
        #expect((error?.underlying as? LMDBError)?.code == .noSpace, "\(String(describing: error))")
        // What is left is an environment with no database, an empty store to readers — or, when the
        // disk refused LMDB's own first pages too (seen once in a loaded parallel run), nothing.
        if FileManager.default.fileExists(atPath: path + "/data.mdb") {
            let copy = try OpenFaultTests.copy(path)
            defer { try? FileManager.default.removeItem(atPath: copy) }
            #expect(try DataStore.open(path: copy, options: .init(readOnly: true)).collectionNames() == [])
        } else {
            #expect(!FileManager.default.fileExists(atPath: path + "/lock.mdb"), "nothing half-made is left at \(path)")
        }
        try disk.fill(leaving: 1 << 20)
        let store = try DataStore.open(path: path)
        let items = try await store.collection(Item.self, name: "items", idField: "id")
        _ = try await items.add(object: Item(id: "a", text: "space again"))
        #expect(try store.check().isEmpty)
    }
}

/// A tmpfs of a fixed size mounted in a temporary directory, and a file that fills it.
struct SmallDisk {
    let path: String

    /// Whether this process may mount file systems (it runs as root, and mounting works here).
    static let canMount: Bool = {
        guard getuid() == 0 else { return false }
        guard let disk = try? SmallDisk(bytes: 1 << 20) else { return false }
        disk.unmount()
        return true
    }()

    init(bytes: Int) throws {
        path = temporaryStorePath("small-disk")
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        guard Self.run("/bin/mount", ["-t", "tmpfs", "-o", "size=\(bytes)", "tmpfs", path]) == 0 else {
            try? FileManager.default.removeItem(atPath: path)
            throw CocoaError(.fileWriteNoPermission)
        }
    }

    /// Makes the file `fill` as large as leaves `free` bytes unused.
    func fill(leaving free: Int) throws {
        let fill = path + "/fill"
        try? FileManager.default.removeItem(atPath: fill)
        var status = statvfs()
        guard statvfs(path, &status) == 0 else { throw CocoaError(.fileReadUnknown) }
        let available = Int(status.f_bavail) * Int(status.f_frsize)
        let size = max(0, available - free)
        let descriptor = open(fill, O_CREAT | O_WRONLY, 0o644)
        defer { close(descriptor) }
        if size > 0 { #expect(posix_fallocate(descriptor, 0, off_t(size)) == 0) }
    }

    func unmount() {
        _ = Self.run("/bin/umount", ["-l", path])
        try? FileManager.default.removeItem(atPath: path)
    }

    private static func run(_ executable: String, _ arguments: [String]) -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        guard (try? launch(process)) != nil else { return -1 }
        process.waitUntilExit()
        return process.terminationStatus
    }
}
