import DataStoreCore
import DataStoreCrashHelper
import DataStoreKit
import Foundation
import TestSupport
import Testing

/// An `index add` whose build was killed part way leaves its index `building`; running the tool's
/// same command again resumes and finishes it (it used to say the collection "already has the
/// index" and leave it so). The interrupted build is the crash helper's, paused after its first
/// batch of entries and killed, so the state is the same on every run.
@Suite("datastore index add resumes a build that did not finish")
struct IndexBuildResumeTests {
    @Test("index add of an index left building: resumed with progress, ready with every entry, check clean")
    func resumesKilledBuild() async throws {
        let path = temporaryStorePath("resume")
        defer { try? FileManager.default.removeItem(atPath: path) }
        do {
            let store = try DataStore.open(path: path, options: DataStore.Options(durability: .none))
            let items = try await SchemaWorkload.collection(in: store)
            try await items.add(contentsOf: (0..<4_000).map { SchemaDocument(id: "s-\($0)", group: $0 % 5, n: $0) })
            store.close()
        }
        let child = try ChildProcess(["declare-index", path, "--name", "g", "--pause-after", "1"])
        #expect(try await child.waitForLine(startingWith: "PAUSED") != nil, "\(child.lines.suffix(3))")
        child.killNow()
        _ = await child.waitForExit()

        let listed = try await Self.tool(["index", "list", path, SchemaWorkload.collectionName, "--json"])
        #expect(listed.output.contains(#""state":"building""#), "\(listed)")
        let resumed = try await Self.tool([
            "index", "add", path, SchemaWorkload.collectionName, "g", "--fields", "group", "--json"
        ])
        #expect(resumed.status == 0, "\(resumed)")
        #expect(resumed.errors.contains("left building: resuming its build"), "\(resumed)")
        #expect(
            resumed.output.contains(#""state":"ready""#) && resumed.output.contains(#""entries":4000"#), "\(resumed)")
        let checked = try await Self.tool(["check", path])
        #expect(checked.status == 0, "\(checked)")
        let explained = try await Self.tool([
            "query", path, SchemaWorkload.collectionName, #"{"group": 3}"#, "--explain"
        ])
        #expect(explained.output.contains("index scan of g"), "\(explained)")
    }

    /// Runs the built `datastore` tool (next to the crash helper).
    static func tool(_ arguments: [String]) async throws -> ProcessRun {
        try await runProcess(
            ChildProcess.helperURL().deletingLastPathComponent().appendingPathComponent("datastore").path, arguments)
    }
}
