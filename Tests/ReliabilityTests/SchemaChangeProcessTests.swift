// Schema changes across processes: a process that holds a collection open sees the indexes
// another process adds, redefines and drops, both in its writes and in its queries.
import DataStoreCore
import DataStoreCrashHelper
@testable import DataStoreKit
import Foundation
import Testing

@Suite("Schema changes across processes", .serialized)
struct SchemaChangeProcessTests {
    @Test("a child's writes and queries follow the indexes this process adds, redefines and drops")
    func writerFollowsIndexChanges() async throws {
        let path = temporaryStorePath("schema-writer")
        defer {
            try? FileManager.default.removeItem(atPath: path)
            for phase in 1..<4 { try? FileManager.default.removeItem(atPath: "\(path).phase-\(phase)") }
        }
        let child = try ChildProcess(["schema-writer", path, "--phases", "4", "--per-phase", "30"])
        #expect(try await child.waitForLine(startingWith: "PHASE 0") == "PHASE 0 ok")
        let store = try DataStore.open(path: path, options: DataStore.Options(durability: .none))
        defer { store.close() }
        let items = try await SchemaWorkload.collection(in: store)
        let changes: [(String, @Sendable () async throws -> Void)] = [
            ("added", { try await store.addIndex(IndexDefinition("group"), to: SchemaWorkload.collectionName) }),
            (
                "redefined",
                {
                    try await store.redeclareIndexes(
                        [IndexDefinition("group", fields: ["group", "n"])], on: SchemaWorkload.collectionName,
                        undeclaredIndexes: .drop)
                }
            ),
            ("dropped", { try await store.dropIndex(named: "group", from: SchemaWorkload.collectionName) })
        ]
        for (phase, (change, apply)) in zip(1..., changes) {
            try await apply()
            _ = FileManager.default.createFile(atPath: "\(path).phase-\(phase)", contents: nil)
            let before = try await child.waitForLine(startingWith: "BEFORE \(phase)")
            #expect(
                before == "BEFORE \(phase) ok",
                "the index was \(change): the child's first queries: \(before ?? "none")")
            let line = try await child.waitForLine(startingWith: "PHASE \(phase)")
            #expect(
                line == "PHASE \(phase) ok", "after the index was \(change), the child's queries: \(line ?? "none")")
            let integrity = try store.check()
            #expect(integrity.isEmpty, "after the index was \(change): \(integrity.prefix(5))")
            #expect(try SchemaWorkload.mismatchedGroups(in: items).isEmpty, "after the index was \(change)")
            let plan = try items.explain(params: ["group": 1])
            #expect(plan.description.contains("index") == (change != "dropped"), "\(change): \(plan)")
        }
        #expect(await child.waitForExit())
        #expect(child.exitStatus == 0, "\(child.lines.suffix(3))")
    }
}
