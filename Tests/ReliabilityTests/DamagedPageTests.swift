import DataStoreCore
import Foundation
import LMDB
import TestSupport
import Testing

@testable import DataStoreKit

/// A store whose file was damaged — a page overwritten with noise, a few bytes of one changed, a
/// record's bytes overwritten, a meta page changed — is checked in this process: `check` reports
/// the damage (naming the collection and index) or finds none, and never crashes the process,
/// because every page is verified from the file before LMDB follows it.
@Suite("Damaged pages")
struct DamagedPageTests {
    /// A store of 3 000 documents in `M` with a unique, a multi-value and a plain index, closed.
    static func baseStore() async throws -> String {
        let path = temporaryStorePath("damaged-base")
        let store = try DataStore.open(path: path)
        let collection = try await store.collection(
            "M", mapping: ObjectMapping<Document>(idField: "id", encode: { $0 }, decode: { $0 }),
            indexes: [
                IndexDefinition("u", unique: true), IndexDefinition("tags", multiValue: true), IndexDefinition("n")
            ])
        try await collection.add(
            contentsOf: (0..<3_000).map { number in
                [
                    "id": .int(Int64(number)), "u": .string("user\(number)"), "n": .int(Int64(number % 50)),
                    "tags": .array([.string("a\(number % 7)"), .string("b\(number % 11)")]),
                    "text": .string(String(repeating: "hello world \(number) ", count: 3))
                ]
            })
        store.close()
        return path
    }

    /// Overwrites part of `file` as `mode` says, at places drawn from `rng`.
    static func damage(_ file: String, mode: Int, _ rng: inout SeededGenerator) throws {
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: file))
        defer { try? handle.close() }
        let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))
        let pages = Int(try handle.seekToEnd()) / pageSize
        func write(_ offset: Int, _ count: Int) throws {
            try handle.seek(toOffset: UInt64(offset))
            handle.write(Data((0..<count).map { _ in UInt8.random(in: 0...255, using: &rng) }))
        }
        let page = Int.random(in: 2..<pages, using: &rng)
        switch mode {
        case 0: try write(page * pageSize, pageSize)
        case 1:
            for _ in 0..<Int.random(in: 1...8, using: &rng) {
                try write(
                    page * pageSize + Int.random(in: 0..<pageSize - 16, using: &rng),
                    Int.random(in: 1...16, using: &rng))
            }
        case 2: try write(page * pageSize + Int.random(in: pageSize / 2..<pageSize - 400, using: &rng), 400)
        default:
            let meta = Int.random(in: 0...1, using: &rng)
            for _ in 0..<Int.random(in: 1...4, using: &rng) {
                try write(meta * pageSize + Int.random(in: 0..<160, using: &rng), Int.random(in: 1...8, using: &rng))
            }
        }
    }

    @Test("random damage, 80 times: check names it or finds none, and the process lives")
    func randomDamage() async throws {
        let base = try await Self.baseStore()
        defer { try? FileManager.default.removeItem(atPath: base) }
        var rng = SeededGenerator(seed: 2_024)
        var found = 0
        var namedCollection = 0
        for trial in 0..<80 {
            let copy = temporaryStorePath("damaged-\(trial)")
            defer { try? FileManager.default.removeItem(atPath: copy) }
            try FileManager.default.copyItem(atPath: base, toPath: copy)
            try Self.damage(copy + "/data.mdb", mode: trial % 4, &rng)
            // What opening the store would read: checked from the file first.
            let opening: [IntegrityProblem]
            do { opening = try DataStore.structureProblems(atPath: copy) } catch {
                #expect(error is LMDBError, "trial \(trial): \(error)")
                continue
            }
            if !opening.isEmpty {
                found += 1
                continue
            }
            let store: DataStore
            do { store = try DataStore.open(path: copy, options: DataStore.Options(readOnly: true)) } catch {
                // A typed refusal (a truncated file, a catalog without the store's databases).
                #expect(error is DataStoreError || error is LMDBError, "trial \(trial): \(error)")
                continue
            }
            let problems = try store.check()
            store.close()
            if !problems.isEmpty { found += 1 }
            if problems.contains(where: { $0.collection == "M" }) { namedCollection += 1 }
        }
        // Most damage lands on pages in use (the rest on free pages or unused bytes).
        #expect(found >= 30, "only \(found) of 80 damaged stores had problems found")
        #expect(namedCollection >= 15, "only \(namedCollection) problems named the collection")
    }
}
