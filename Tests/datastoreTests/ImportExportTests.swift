import Foundation
import Testing

@Suite("import and export")
struct ImportExportTests {
    @Test func importStoresEveryLineAndReportsIt() async throws {
        let sandbox = try ToolSandbox()
        let file = try sandbox.write(
            "{\"id\": 1, \"a\": 1}\n\n   \n{\"id\": \"two\", \"a\": 2.5}\r\n{\"a\": 3}", to: "in.jsonl")
        let run = try await sandbox.run("import", sandbox.path("store"), "Thing", file, "--create")
        #expect(run.status == 0, "\(run)")
        let summary = try run.json()
        #expect(summary["imported"] as? Int == 3)
        #expect(summary["lines"] as? Int == 5)
        #expect(summary["collection"] as? String == "Thing")
        let stored = try await sandbox.run("query", sandbox.path("store"), "Thing", "--count")
        #expect(stored.output == #"{"count":3}"# + "\n")

        let unsynced = try await sandbox.run(
            "import", sandbox.path("store"), "Other", file, "--no-sync", "--in-flight", "1")
        #expect(unsynced.status == 0, "\(unsynced)")
        let copied = try await sandbox.run("export", sandbox.path("store"), "Other")
        let original = try await sandbox.run("export", sandbox.path("store"), "Thing")
        #expect(copied.lines.count == 3)
        #expect(copied.lines.filter { !$0.contains("\"a\":3") } == original.lines.filter { !$0.contains("\"a\":3") })
    }

    @Test func importReadsStandardInputAndReplacesByDefault() async throws {
        let sandbox = try ToolSandbox()
        let store = try await sandbox.seededStore(count: 3)
        let run = try await sandbox.run(
            "import", store, "Message", "--table",
            input: "{\"id\": 1, \"text\": \"replaced\"}\n{\"id\": 3}\n")
        #expect(run.status == 0, "\(run)")
        #expect(run.output.hasPrefix("imported 2 documents into Message from 2 lines in "))
        let fetched = try await sandbox.run("get", store, "Message", "1")
        #expect(fetched.output == #"{"id":1,"text":"replaced"}"# + "\n")

        let insert = try await sandbox.run("import", store, "Message", "--insert", input: "{\"id\": 10}\n{\"id\": 2}\n")
        #expect(insert.status == 4, "\(insert)")
        #expect(insert.errors.hasPrefix("datastore: line 2: "))
        #expect(insert.errors.hasSuffix("Import stopped: the 1 document before line 2 is stored\n"))
        let ten = try await sandbox.run("get", store, "Message", "10")
        #expect(ten.status == 0)
    }

    @Test func aBadLineStopsTheImportAndKeepsTheLinesBeforeIt() async throws {
        let sandbox = try ToolSandbox()
        var lines = (1...300).map { "{\"id\": \($0)}" }
        lines[249] = "{\"id\": 250, oops"
        let file = try sandbox.write(lines.joined(separator: "\n"), to: "bad.jsonl")
        let store = sandbox.path("store")
        let run = try await sandbox.run("import", store, "Thing", file, "--create", "--in-flight", "16")
        #expect(run.status == 4, "\(run)")
        #expect(
            run.errors.hasPrefix(
                "datastore: created collection Thing (id field id)\ndatastore: line 250 is not valid JSON ("))
        #expect(
            run.errors.hasSuffix(
                "): {\"id\": 250, oops. Import stopped: the 249 documents before line 250 are stored\n"))
        #expect(run.output.isEmpty)
        let count = try await sandbox.run("query", store, "Thing", #"{"id <": 250}"#, "--count")
        #expect(count.output == #"{"count":249}"# + "\n")
        let after = try await sandbox.run("query", store, "Thing", #"{"id >": 250}"#, "--count")
        #expect(after.output == #"{"count":0}"# + "\n")

        let notObject = try await sandbox.run("import", store, "Thing", input: "{\"id\": 1}\n42\n")
        #expect(notObject.status == 4)
        #expect(notObject.errors.hasPrefix("datastore: line 2 is a JSON int, not a JSON object."))
    }

    @Test func importOfAMissingFileOrIntoAMissingStoreFails() async throws {
        let sandbox = try ToolSandbox()
        let store = try await sandbox.seededStore(count: 1)
        let missingFile = try await sandbox.run("import", store, "Message", sandbox.path("nope.jsonl"))
        #expect(missingFile.status == 3)
        #expect(
            missingFile.errors == "datastore: cannot open \(sandbox.path("nope.jsonl")): No such file or directory\n")
        let missingStore = try await sandbox.run("import", sandbox.path("absent"), "Message", input: "{}\n")
        #expect(missingStore.status == 3)
    }

    @Test func exportStreamsEveryDocumentInIdOrderAndImportReadsItBack() async throws {
        let sandbox = try ToolSandbox()
        let store = sandbox.path("store")
        var lines = (0..<25).reversed().map {
            "{\"id\": \($0), \"half\": \(Double($0) / 2), \"raw\": {\"$base64\": \"AAE=\"}}"
        }
        lines += ["b", "a", "c", "ab"].map { "{\"id\": \"\($0)\", \"list\": [1, \"x\", null, true]}" }
        let file = try sandbox.write(lines.joined(separator: "\n") + "\n", to: "mixed.jsonl")
        let imported = try await sandbox.run("import", store, "Mixed", file, "--create")
        #expect(imported.status == 0, "\(imported)")

        let exported = try await sandbox.run("export", store, "Mixed", "--chunk", "4")
        #expect(exported.status == 0, "\(exported)")
        #expect(exported.errors.isEmpty)
        let ids = try exported.jsonLines().map { "\($0["id"]!)" }
        #expect(ids == (0..<25).map(String.init) + ["a", "ab", "b", "c"])
        #expect(exported.lines[3] == #"{"half":1.5,"id":3,"raw":{"$base64":"AAE="}}"#)
        #expect(exported.lines[0] == #"{"half":0.0,"id":0,"raw":{"$base64":"AAE="}}"#)

        for chunk in ["1", "25", "29", "1000"] {
            let again = try await sandbox.run("export", store, "Mixed", "--chunk", chunk)
            #expect(again.output == exported.output, "chunk \(chunk)")
        }

        let toFile = try await sandbox.run("export", store, "Mixed", sandbox.path("out.jsonl"))
        #expect(toFile.status == 0)
        #expect(toFile.output == "exported 29 documents from Mixed to \(sandbox.path("out.jsonl"))\n")
        let copy = sandbox.path("copy")
        let reimported = try await sandbox.run("import", copy, "Mixed", sandbox.path("out.jsonl"), "--create")
        #expect(reimported.status == 0, "\(reimported)")
        let roundTrip = try await sandbox.run("export", copy, "Mixed")
        #expect(roundTrip.output == exported.output)
    }

    @Test func exportOfAnEmptyOrUnknownCollection() async throws {
        let sandbox = try ToolSandbox()
        let store = try await sandbox.seededStore(count: 1)
        _ = try await sandbox.run("remove", store, "Message", "0")
        let empty = try await sandbox.run("export", store, "Message")
        #expect(empty.status == 0)
        #expect(empty.output.isEmpty)
        let unknown = try await sandbox.run("export", store, "Nothing")
        #expect(unknown.status == 3)
        #expect(
            unknown.errors == "datastore: no collection Nothing in the store at \(store); the collections are Message\n"
        )
    }
}
