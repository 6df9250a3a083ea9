import DataStoreCore
import DataStoreCrashHelper
@testable import DataStoreKit
import Foundation
import LMDB
import Testing

/// The world failing underneath the store: a disk that refuses to grow the file, a second process
/// writing the same store, bytes damaged on disk. (A map that may not grow is
/// `WriterTests.mapCannotGrow` in DataStoreKitTests.)
@Suite("Faults")
struct FaultTests {
    @Test(
        "a file-size limit: writes fail by name, nothing acknowledged is lost, reads go on, writes resume once lifted")
    func diskRefusesToGrow() async throws {
        let path = temporaryStorePath("fsize")
        defer { try? FileManager.default.removeItem(atPath: path) }
        // A child whose RLIMIT_FSIZE stops data.mdb at 1 MiB (SIGXFSZ ignored, so writes fail with EFBIG).
        let child = try ChildProcess(["saves", path, "--workers", "2", "--file-size-limit", "\(1 << 20)"])
        #expect(await child.waitForExit(timeout: 120), "the helper did not stop: \(child.lines.suffix(3))")
        #expect(child.exitStatus == 0, "\(child.lines.suffix(5))")
        let lines = child.lines
        let acknowledged = lines.compactMap { Acknowledgement(line: $0) }
        #expect(acknowledged.count > 10, "the limit was hit before anything was acknowledged")

        // Every failed save is a storage error wrapping LMDB's EFBIG (or EIO, which LMDB reports
        // for a short write), naming the store's path.
        let errors = lines.filter { $0.hasPrefix("ERROR ") }
        #expect(!errors.isEmpty, "no save failed: \(lines.suffix(3))")
        for error in errors {
            let words = error.split(separator: " ", maxSplits: 3).map(String.init)
            #expect(words[1] == "storage", "\(error)")
            #expect(words[2] == "fileTooLarge" || words[2] == "ioError", "\(error)")
            #expect(words.count == 4 && words[3].contains(URL(fileURLWithPath: path).lastPathComponent), "\(error)")
        }
        // The same process, right after the refusals, still reads every acknowledged document.
        let read = lines.first { $0.hasPrefix("READ ") }.flatMap { Int($0.dropFirst(5)) }
        #expect(read == Self.documents(acknowledged), "\(lines.suffix(4))")

        // The limit lifted (this process has none): everything acknowledged is there, whole, and
        // writes work again.
        let store = try DataStore.open(path: path)
        defer { store.close() }
        let items = try await CrashWorkload.collection(in: store)
        let stored = try await items.all()
        let problems = GroupVerifier.problems(stored: stored, acknowledged: acknowledged)
        #expect(problems.isEmpty, "\(problems.prefix(10))")
        #expect(try store.check().isEmpty)
        let context = store.newContext()
        for index in 0..<5 {
            try context.add(CrashItem(tag: "after-limit", of: 5, index: index, removes: nil), to: items)
        }
        try await context.save()
        #expect(try await items.query(params: ["tag": "after-limit"], options: nil).count == 5)
        #expect(try store.check().isEmpty)
    }

    @Test("two processes writing one store at once: both succeed, each sees the other's commits, nothing is corrupted")
    func twoWriterProcesses() async throws {
        let path = temporaryStorePath("two-writers")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let count = 30, workers = 4
        // Both start on an empty directory: they also race to create the collection and its indexes.
        let first = try ChildProcess([
            "saves", path, "--workers", "\(workers)", "--count", "\(count)",
            "--prefix", "A", "--other", "B", "--other-count", "\(count)"
        ])
        let second = try ChildProcess([
            "saves", path, "--workers", "\(workers)", "--count", "\(count)",
            "--prefix", "B", "--other", "A", "--other-count", "\(count)"
        ])
        let firstExited = await first.waitForExit()
        let secondExited = await second.waitForExit()
        #expect(firstExited && secondExited)
        #expect(first.exitStatus == 0, "\(first.lines.suffix(3))")
        #expect(second.exitStatus == 0, "\(second.lines.suffix(3))")
        let firstAcks = first.lines.compactMap { Acknowledgement(line: $0) }
        let secondAcks = second.lines.compactMap { Acknowledgement(line: $0) }
        #expect(firstAcks.count == count * workers && secondAcks.count == count * workers)
        let expected = Self.documents(firstAcks)
        #expect(first.lines.contains("SAW \(expected)"), "A did not see all of B's documents: \(first.lines.suffix(2))")
        #expect(
            second.lines.contains("SAW \(expected)"), "B did not see all of A's documents: \(second.lines.suffix(2))")

        let store = try DataStore.open(path: path)
        defer { store.close() }
        let items = try await CrashWorkload.collection(in: store)
        let stored = try await items.all()
        #expect(stored.count == 2 * expected)
        let problems = GroupVerifier.problems(stored: stored, acknowledged: firstAcks + secondAcks)
        #expect(problems.isEmpty, "\(problems.prefix(10))")
        let integrity = try store.check()
        #expect(integrity.isEmpty, "\(integrity.prefix(10))")
    }

    @Test("a corrupted record: a codec error naming collection and id, reported by check, other records still read")
    func corruptedRecord() async throws {
        let path = temporaryStorePath("corrupt")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let store = try DataStore.open(path: path)
        defer { store.close() }
        let items = try await CrashWorkload.collection(in: store)
        let context = store.newContext()
        for index in 0..<5 { try context.add(CrashItem(tag: "g", of: 5, index: index, removes: nil), to: items) }
        try await context.save()

        // Overwrite g.2's record through the LMDB layer: a valid version prefix, then a record
        // whose string length runs past the end.
        var key: [UInt8] = []
        KeyCodec.append(.string("g.2"), to: &key)
        let records = try store.environment.openDatabase(named: "c/\(CrashWorkload.collectionName)")
        try store.environment.write { transaction in
            try transaction.put(
                [0, 0, 0, 0, 0, 0, 0, 7, 0x01, 0x01, 0x02, 0x69, 0x64, 0x09, 0x7F, 0x61], forKey: key, in: records)
        }

        let error = await #expect(throws: DataStoreError.self) { try await items.get(id: "g.2") }
        #expect(error?.code == .codec)
        #expect(error?.message.contains(CrashWorkload.collectionName) == true, "\(String(describing: error))")
        #expect(error?.message.contains("g.2") == true, "\(String(describing: error))")
        #expect(
            (error?.underlying as? DecodingError) != nil || (error?.underlying as? CodecError) != nil,
            "\(String(describing: error?.underlying))")
        #expect(throws: DataStoreError.self) { try items.document(id: "g.2") }

        let problems = try store.check()
        #expect(
            problems.contains {
                $0.collection == CrashWorkload.collectionName && $0.index == nil && $0.message.contains("g.2")
            },
            "\(problems)")

        for id in ["g.0", "g.1", "g.3", "g.4"] {
            #expect(try await items.get(id: .string(id)).tag == "g")
        }
        // A query whose index window does not reach the damaged record still answers
        // (tag_index: tag == "g", then index >= 3 descending: entries g.4, g.3 only).
        #expect(
            try await items.query(params: ["tag": "g", "index >=": 3], options: nil).map(\.id).sorted() == [
                "g.3", "g.4"
            ])
        // A query whose scan reaches it fails as a codec error naming the collection…
        let queryError = await #expect(throws: DataStoreError.self) { try await items.all() }
        #expect(
            queryError?.code == .codec && queryError?.message.contains(CrashWorkload.collectionName) == true,
            "\(String(describing: queryError))")
        // …and names the record, as `get` does.
        #expect(queryError?.message.contains("g.2") == true, "\(String(describing: queryError))")
    }

    /// The documents left by a list of acknowledged change sets (removed groups subtracted).
    static func documents(_ acknowledged: [Acknowledgement]) -> Int {
        let byTag = Dictionary(acknowledged.map { ($0.tag, $0.count) }, uniquingKeysWith: { first, _ in first })
        return acknowledged.reduce(0) { total, ack in total + ack.count - (ack.removes.flatMap { byTag[$0] } ?? 0) }
    }
}
