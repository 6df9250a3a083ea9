import DataStoreKit
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// An `index add` killed part way leaves its index `building`; running the same command again
/// resumes and finishes it (it used to say the collection "already has the index" and leave it).
@Suite("index add resumes a build that did not finish")
struct IndexBuildResumeTests {
    @Test(
        "a unique index built in chunks and a multi-value one built from a snapshot, killed part way, then added again",
        arguments: [["u", "--unique", "--chunk", "100"], ["tags", "--multi-value"]])
    func resumesKilledBuild(_ options: [String]) async throws {
        let sandbox = try ToolSandbox()
        let count = 40_000
        let lines = (0..<count).map { #"{"id": \#($0), "u": "user\#($0)", "tags": ["a\#($0 % 7)", "b\#($0 % 11)"]}"# }
        let file = try sandbox.write(lines.joined(separator: "\n") + "\n", to: "seed.jsonl")
        let store = sandbox.path("store")
        let seeded = try await sandbox.run("import", store, "M", file, "--create", "--no-sync")
        try #require(seeded.status == 0, "\(seeded)")
        let name = options[0]

        let process = Process()
        process.executableURL = try ToolSandbox.executable()
        process.arguments = ["index", "add", store, "M"] + options
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Killed once the index is recorded as building, which this process sees through a
        // read-only open of the store. The tool runs in slices of a few milliseconds and is
        // stopped while this process looks, so a short build cannot finish between two looks.
        let watcher = try DataStore.open(path: store, options: DataStore.Options(readOnly: true))
        var seenBuilding = false
        while process.isRunning && !seenBuilding {
            kill(process.processIdentifier, SIGCONT)
            try await Task.sleep(for: .milliseconds(2))
            kill(process.processIdentifier, SIGSTOP)
            let collection = try watcher.statistics().collections.first { $0.name == "M" }
            seenBuilding = collection?.indexes.first { $0.definition.name == name }?.state == "building"
        }
        watcher.close()
        kill(process.processIdentifier, SIGKILL)
        kill(process.processIdentifier, SIGCONT)
        process.waitUntilExit()
        try #require(seenBuilding, "the build finished before it could be killed")
        let left = try await sandbox.run("index", "list", store, "M", "--json")
        let leftState = (try left.json()["indexes"] as? [[String: Any]])?.first { $0["name"] as? String == name }?[
            "state"]
        #expect(leftState as? String == "building", "\(left)")

        let again = try await sandbox.run(["index", "add", store, "M"] + options + ["--json"])
        #expect(again.status == 0, "\(again)")
        #expect(again.errors.contains("resuming"), "\(again)")
        let index = try again.json()["index"] as? [String: Any]
        #expect(index?["state"] as? String == "ready", "\(again)")
        let listed = try await sandbox.run("index", "list", store, "M", "--json")
        let entries = (try listed.json()["indexes"] as? [[String: Any]])?.first { $0["name"] as? String == name }?[
            "entries"]
        // An entry per document, or per distinct element of its array (two each).
        #expect(entries as? Int == (name == "u" ? count : count * 2), "\(listed)")
        let checked = try await sandbox.run("check", store)
        #expect(checked.status == 0, "\(checked)")
        let query = try await sandbox.run(
            "query", store, "M", name == "u" ? #"{"u": "user7"}"# : #"{"tags": "a3"}"#, "--explain")
        #expect(query.output.contains("index scan of \(name)"), "\(query)")
    }
}
