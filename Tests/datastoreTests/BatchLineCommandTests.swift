// put and remove from JSON Lines, a batch per change set; count; --version; progress fitted to
// the terminal's width.
@testable import datastore
import Foundation
import Testing

@Suite("put and remove --jsonl, count, --version, progress")
struct BatchLineCommandTests {
    @Test func putStoresJSONLinesInBatchesAndStopsAtABadLineWithEarlierBatchesStored() async throws {
        let sandbox = try ToolSandbox()
        let store = sandbox.path("store")
        let lines = (1...5).map { #"{"id": \#($0), "n": \#($0 * 10)}"# }.joined(separator: "\n") + "\n\n"
        let stored = try await sandbox.run(
            "put", store, "Item", "--jsonl", "-", "--create", "--batch", "2", "--no-sync", "--table", input: lines)
        #expect(stored.status == 0, "\(stored)")
        #expect(stored.output == "stored 5 documents in Item\n")
        let all = try await sandbox.run("query", store, "Item")
        #expect(try all.jsonLines().map { $0["n"] as? Int } == [10, 20, 30, 40, 50])

        // The second batch (lines 3 and 4) holds a line without an id: lines 1 and 2 are stored,
        // line 3 is not, though it is valid.
        let bad = #"{"id": 6, "n": 1}"# + "\n" + #"{"id": 7, "n": 1}"# + "\n" + #"{"id": 8}"# + "\n" + #"{"n": 9}"#
        let failed = try await sandbox.run("put", store, "Item", "--jsonl", "-", "--batch", "2", input: bad)
        #expect(failed.status == 4, "\(failed)")
        #expect(
            failed.errors
                == "datastore: line 4 has no id field \"id\". Stopped: nothing of lines 3–4 is stored (one change set); "
                + "the 2 lines before them were stored\n")
        let counted = try await sandbox.run("count", store, "Item")
        #expect(counted.output == #"{"count":7}"# + "\n", "\(counted)")

        let both = try await sandbox.run("put", store, "Item", "9", "--jsonl", "-", input: "")
        #expect(both.status == 2 && both.errors.contains("not both"), "\(both)")
        let neither = try await sandbox.run("put", store, "Item")
        #expect(neither.status == 2 && neither.errors.contains("needs an ID"), "\(neither)")
    }

    @Test func removeTakesIdsOrObjectsAndAMissingIdLeavesItsBatchStored() async throws {
        let sandbox = try ToolSandbox()
        let store = try await sandbox.seededStore(count: 7) // ids 0 to 6
        let removed = try await sandbox.run(
            "remove", store, "Message", "--jsonl", "-", "--table", input: "1\n{\"id\": 2}\n")
        #expect(removed.status == 0, "\(removed)")
        #expect(removed.output == "removed 2 documents from Message\n")
        let missing = try await sandbox.run(
            "remove", store, "Message", "--jsonl", "-", "--batch", "2", input: "3\n4\n5\n99\n")
        #expect(missing.status == 3, "\(missing)")
        #expect(missing.errors.contains("line 4: no object with id 99 in Message"), "\(missing)")
        // 3 and 4 went in the first batch; 5 shared the failed batch with 99 and stays.
        let left = try await sandbox.run("query", store, "Message", "--sort", "id")
        #expect(try left.jsonLines().map { $0["id"] as? Int } == [0, 5, 6])
    }

    @Test func countTakesTheNewOperators() async throws {
        let sandbox = try ToolSandbox()
        let store = sandbox.path("store")
        let lines = [
            #"{"id": 1, "name": "Alice"}"#, #"{"id": 2, "name": "Alfred", "rating": 3}"#,
            #"{"id": 3, "name": "Bob", "rating": null}"#
        ].joined(separator: "\n")
        _ = try await sandbox.run("put", store, "User", "--jsonl", "-", "--create", input: lines)
        for (params, expected) in [
            (#"{"name ^=": "Al"}"#, 2), (#"{"rating exists": false}"#, 1), (#"{"rating exists": true}"#, 2),
            (#"{"name !in": ["Bob", "Alice"]}"#, 1)
        ] {
            let counted = try await sandbox.run("count", store, "User", params)
            #expect(counted.output == #"{"count":\#(expected)}"# + "\n", "\(params): \(counted)")
            let queried = try await sandbox.run("query", store, "User", params, "--count")
            #expect(queried.output == counted.output, "\(params)")
        }
        let wrong = try await sandbox.run("count", store, "User", #"{"rating exists": 1}"#)
        #expect(wrong.status == 4 && wrong.errors.contains("rating exists"), "\(wrong)")
    }

    @Test func queryPagesResumeFromTheirToken() async throws {
        let sandbox = try ToolSandbox()
        let store = try await sandbox.seededStore(count: 7)
        var ids: [Int] = []
        var after: [String] = []
        for _ in 0..<3 {
            let page = try await sandbox.run(["query", store, "Message", "--page", "3", "--sort", "-id"] + after)
            #expect(page.status == 0, "\(page)")
            ids += try page.jsonLines().compactMap { $0["id"] as? Int }
            let note = page.errors.split(separator: "\n").first { $0.hasPrefix("datastore: more results: --after ") }
            after = note.map { ["--after", String($0.dropFirst("datastore: more results: --after ".count))] } ?? []
        }
        #expect(ids == [6, 5, 4, 3, 2, 1, 0])
        #expect(after.isEmpty)
        let bad = try await sandbox.run("query", store, "Message", "--page", "3", "--after", "nope!")
        #expect(bad.status == 4 && bad.errors.contains("is not a token this store made"), "\(bad)")
        let foreign = try await sandbox.run("query", store, "Message", "--page", "3", "--after", "AYCZm36l9TFaAQAwwAg")
        #expect(foreign.status == 4 && foreign.errors.contains("page token"), "\(foreign)")
    }

    @Test func versionPrintsTheVersion() async throws {
        let run = try await ToolSandbox().run("--version")
        #expect(run.status == 0)
        #expect(run.output == "datastore \(Tool.version) (DataStoreKit store format 3, record format 1)\n")
    }

    @Test("a progress line fits every width, drops parts as it narrows, and shows the time left")
    func progressFitsTheWidth() {
        let line = ProgressLine(
            label: "building index created_ts", unit: "entries", completed: 123_456, fraction: 0.25,
            elapsedSeconds: 30)
        #expect(line.eta == "ETA 1:30")
        for width in 1...200 {
            let text = line.text(width: width)
            #expect(text.count <= width, "width \(width): \(text)")
        }
        #expect(line.text(width: 49).contains("ETA 1:30"))
        #expect(line.text(width: 49).contains("25%"))
        #expect(line.text(width: 120).contains("["))
        #expect(line.text(width: 120).contains("123,456 entries"))
        #expect(line.plainText == "building index created_ts: 123,456 entries (25%), 4,115/s, ETA 1:30")
        let unknown = ProgressLine(
            label: "importing", unit: "documents", completed: 10, fraction: nil, elapsedSeconds: 2)
        #expect(unknown.eta == nil)
        #expect(!unknown.text(width: 80).contains("["))
        #expect(TerminalWidth.fromEnvironment("50") == 50)
        #expect(TerminalWidth.fromEnvironment("x") == 80)
        #expect(TerminalWidth.fromEnvironment(nil) == 80)
    }
}
