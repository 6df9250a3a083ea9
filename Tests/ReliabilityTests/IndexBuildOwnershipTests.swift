// One build per index across processes: processes that declare the same index at once build it
// once, and a build whose process was killed is taken over by the next one to declare it.
import DataStoreCore
import DataStoreCrashHelper
@testable import DataStoreKit
import Foundation
import Testing

@Suite("Index builds across processes", .serialized)
struct IndexBuildOwnershipTests {
    /// A store of `count` documents of the schema workload, spread over its groups.
    private static func seededStore(_ label: String, count: Int = 3_000) async throws -> (DataStore, String) {
        let path = temporaryStorePath(label)
        let store = try DataStore.open(path: path, options: DataStore.Options(durability: .none))
        let items = try await SchemaWorkload.collection(in: store)
        try await items.add(contentsOf: (0..<count).map { SchemaDocument(id: "s-\($0)", group: $0 % 5, n: $0) })
        return (store, path)
    }

    @Test("two processes that declare the same index at once both succeed, and it is built once")
    func concurrentDeclarations() async throws {
        let (store, path) = try await Self.seededStore("twin-declare")
        defer {
            store.close()
            try? FileManager.default.removeItem(atPath: path)
        }
        let items = try await SchemaWorkload.collection(in: store)
        for round in 0..<5 {
            let name = "g\(round)"
            let children = try (0..<2).map { _ in try ChildProcess(["declare-index", path, "--name", name]) }
            var builds = 0
            for child in children {
                #expect(await child.waitForExit())
                #expect(child.exitStatus == 0, "round \(round): \(child.lines.suffix(3))")
                let line = child.lines.first { $0.hasPrefix("DECLARED builds=") }
                builds += line.flatMap { Int($0.dropFirst("DECLARED builds=".count)) } ?? 0
            }
            #expect(builds == 1, "round \(round): \(builds) builds of \(name)")
            let integrity = try store.check()
            #expect(integrity.isEmpty, "round \(round): \(integrity.prefix(5))")
            #expect(try SchemaWorkload.mismatchedGroups(in: items).isEmpty, "round \(round)")
            #expect(items.indexes.contains(IndexDefinition(name, fields: ["group"])), "round \(round)")
        }
    }

    @Test("a build whose process was killed midway is taken over and finished by the next declaration")
    func killedOwnerIsTakenOver() async throws {
        let (store, path) = try await Self.seededStore("killed-builder")
        defer {
            store.close()
            try? FileManager.default.removeItem(atPath: path)
        }
        let child = try ChildProcess(["declare-index", path, "--name", "gk", "--pause-after", "1"])
        #expect(try await child.waitForLine(startingWith: "PAUSED") != nil, "\(child.lines.suffix(3))")
        child.killNow()
        let definition = IndexDefinition("gk", fields: ["group"])
        try await store.addIndex(definition, to: SchemaWorkload.collectionName)
        #expect(store.indexBuildsRun.load(ordering: .relaxed) == 1)
        let items = try await SchemaWorkload.collection(in: store)
        #expect(items.storage.indexes.first { $0.name == "gk" }?.state == .ready)
        let integrity = try store.check()
        #expect(integrity.isEmpty, "\(integrity.prefix(5))")
        #expect(try SchemaWorkload.mismatchedGroups(in: items).isEmpty)
        #expect(try items.explain(params: ["group": 1]).description.contains("gk"))
    }

    @Test("another process adding, moving and removing documents throughout a snapshot build leaves the index right")
    func foreignWritesDuringBuild() async throws {
        let (store, path) = try await Self.seededStore("foreign-writes")
        let go = "\(path).go"
        defer {
            store.close()
            try? FileManager.default.removeItem(atPath: path)
            try? FileManager.default.removeItem(atPath: go)
        }
        let child = try ChildProcess(["churn", path, "--count", "120", "--go", go])
        #expect(try await child.waitForLine(startingWith: "READY") != nil)
        // Each stage of the build waits for more of the child's writes, which begin once the
        // index is registered (its first write transaction then knows of it).
        store.indexBuildSettings.withLock { settings in
            settings.batchBytes = 4_096
            settings.pause = { stage in
                let rounds: Int?
                switch stage {
                case .logStarted:
                    _ = FileManager.default.createFile(atPath: go, contents: nil)
                    rounds = 20
                case .extracted: rounds = 50
                case .appended(let batch): rounds = batch == 1 ? 90 : nil
                }
                if let rounds { _ = try await child.waitForLine(startingWith: "WROTE \(rounds)") }
            }
        }
        try await store.addIndex(IndexDefinition("gc", fields: ["group"]), to: SchemaWorkload.collectionName)
        #expect(await child.waitForExit())
        #expect(child.exitStatus == 0, "\(child.lines.suffix(3))")
        #expect(child.lines.contains("DONE"))
        let items = try await SchemaWorkload.collection(in: store)
        let integrity = try store.check()
        #expect(integrity.isEmpty, "\(integrity.prefix(5))")
        #expect(try SchemaWorkload.mismatchedGroups(in: items).isEmpty)
        #expect(try items.explain(params: ["group": 1]).description.contains("gc"))
    }
}
