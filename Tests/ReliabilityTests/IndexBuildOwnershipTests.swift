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
}
