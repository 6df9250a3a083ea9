@testable import DataStoreKit
import Foundation
import Testing

@Suite("stats, check, index, backup, compact")
struct MaintenanceCommandTests {
    @Test func statsDescribesTheStore() async throws {
        let sandbox = try ToolSandbox()
        let store = try await sandbox.seededStore(count: 5)
        _ = try await sandbox.run("index", "add", store, "Message", "by_user", "--fields", "from_user_key,-created_ts")
        let run = try await sandbox.run("stats", store)
        #expect(run.status == 0, "\(run)")
        let stats = try run.json()
        #expect(stats["formatVersion"] as? Int == 3, "the seeded saves kept recent change records")
        #expect((stats["mapSize"] as? Int ?? 0) > 0)
        #expect((stats["bytesInUse"] as? Int ?? 0) > 0)
        #expect(stats["maxReaders"] as? Int == 126)
        let collections = try #require(stats["collections"] as? [[String: Any]])
        #expect(collections.map { $0["name"] as? String } == ["Message"])
        #expect(collections[0]["documents"] as? Int == 5)
        #expect(collections[0]["idField"] as? String == "id")
        let indexes = try #require(collections[0]["indexes"] as? [[String: Any]])
        #expect(indexes.count == 1)
        #expect(indexes[0]["name"] as? String == "by_user")
        #expect(indexes[0]["state"] as? String == "ready")
        #expect(indexes[0]["entries"] as? Int == 5)

        let table = try await sandbox.run("stats", store, "--table")
        #expect(table.lines[0] == "store        \(store)")
        #expect(table.lines.contains { $0.hasPrefix("Message     id                5") })
        #expect(table.lines.contains { $0.contains("by_user  from_user_key,-created_ts") })
    }

    @Test func readCommandsRefuseAMissingDirectoryOrANonStore() async throws {
        let sandbox = try ToolSandbox()
        let missing = sandbox.path("missing")
        for arguments in [
            ["stats", missing], ["get", missing, "C", "1"], ["query", missing, "C"], ["export", missing, "C"],
            ["check", missing], ["index", "list", missing, "C"], ["backup", missing, sandbox.path("b")],
            ["remove", missing, "C", "1"], ["put", missing, "C", "1", "{}"]
        ] {
            let run = try await sandbox.run(arguments)
            #expect(run.status == 3, "\(arguments): \(run)")
            #expect(run.errors == "datastore: no store at \(missing): the directory does not exist\n")
        }
        try FileManager.default.createDirectory(atPath: sandbox.path("empty"), withIntermediateDirectories: true)
        let empty = try await sandbox.run("stats", sandbox.path("empty"))
        #expect(empty.status == 3)
        #expect(empty.errors == "datastore: no store at \(sandbox.path("empty")): the directory holds no data.mdb\n")
        let file = try sandbox.write("x", to: "file")
        let notDirectory = try await sandbox.run("stats", file)
        #expect(notDirectory.status == 5)
        #expect(notDirectory.errors == "datastore: \(file) is a file, not a store directory\n")
    }

    @Test func checkPassesOnAHealthyStoreAndReportsAMissingIndexEntry() async throws {
        let sandbox = try ToolSandbox()
        let store = try await sandbox.seededStore(count: 5)
        _ = try await sandbox.run("index", "add", store, "Message", "created_ts")
        let healthy = try await sandbox.run("check", store)
        #expect(healthy.status == 0, "\(healthy)")
        #expect(healthy.output == #"{"collections":["Message"],"ok":true,"problems":[]}"# + "\n")
        let table = try await sandbox.run("check", store, "Message", "--table")
        #expect(table.output == "no problems in 1 collection\n")

        // Damage the index behind the store's back: remove its first entry.
        do {
            let opened = try DataStore.open(path: store)
            let index = try opened.environment.openDatabase(named: "i/Message/created_ts")
            try opened.environment.write { transaction in
                try transaction.withCursor(on: index) { cursor in
                    _ = try cursor.move(.first)
                    try cursor.deleteCurrent()
                }
            }
            opened.close()
        }
        let damaged = try await sandbox.run("check", store, "--table")
        #expect(damaged.status == 1, "\(damaged)")
        #expect(damaged.lines.last == "1 problem found")
        #expect(damaged.output.contains("Message     created_ts  a record's entry is missing"))
        let json = try await sandbox.run("check", store)
        #expect(json.status == 1)
        #expect(try json.json()["ok"] as? Bool == false)
        let unknown = try await sandbox.run("check", store, "Nope")
        #expect(unknown.status == 3)
    }

    @Test func indexesAreAddedListedAndDropped() async throws {
        let sandbox = try ToolSandbox()
        let store = try await sandbox.seededStore(count: 20)
        let added = try await sandbox.run(
            "index", "add", store, "Message", "by_user", "--fields", "from_user_key,-created_ts",
            "--chunk", "3", "--table")
        #expect(added.status == 0, "\(added)")
        #expect(added.output == "index by_user(from_user_key, created_ts desc) on Message: ready, 20 entries\n")
        let unique = try await sandbox.run("index", "add", store, "Message", "text", "--unique")
        #expect(unique.status == 0, "\(unique)")
        let index = try #require(try unique.json()["index"] as? [String: Any])
        #expect(index["unique"] as? Bool == true)
        #expect(index["entries"] as? Int == 20)

        let list = try await sandbox.run("index", "list", store, "Message", "--table")
        #expect(list.lines.count == 4)
        #expect(list.lines[0].hasPrefix("index    fields                     options  state  entries"))
        #expect(list.lines[2].hasPrefix("by_user  from_user_key,-created_ts           ready       20"))
        #expect(list.lines[3].hasPrefix("text     text                       unique   ready       20"))

        let again = try await sandbox.run("index", "add", store, "Message", "text", "--unique")
        #expect(again.status == 0)
        #expect(again.errors == "datastore: collection Message already has the index text(text, unique)\n")
        let conflicting = try await sandbox.run("index", "add", store, "Message", "text")
        #expect(conflicting.status == 4)
        #expect(
            conflicting.errors == "datastore: collection Message already has an index text: text(text, unique); "
                + "drop it first to declare text(text)\n")
        let duplicates = try await sandbox.run(
            "index", "add", store, "Message", "user", "--fields", "from_user_key", "--unique")
        #expect(duplicates.status == 4, "\(duplicates)")
        #expect(duplicates.errors.hasPrefix("datastore: index user on Message cannot be built from the stored records"))
        let badFields = try await sandbox.run("index", "add", store, "Message", "x", "--fields", "a,,b")
        #expect(badFields.status == 2)

        let dropped = try await sandbox.run("index", "drop", store, "Message", "text", "--table")
        #expect(dropped.status == 0, "\(dropped)")
        #expect(dropped.output == "dropped index text(text, unique) from Message\n")
        let json = try await sandbox.run("index", "list", store, "Message")
        let names = try #require(try json.json()["indexes"] as? [[String: Any]]).map { $0["name"] as? String }
        #expect(names == ["by_user"])
        let missing = try await sandbox.run("index", "drop", store, "Message", "text")
        #expect(missing.status == 3)
        #expect(missing.errors == "datastore: collection Message has no index text; its indexes are by_user\n")
    }

    @Test func backupCopiesAStoreThatOpensLikeTheOriginal() async throws {
        let sandbox = try ToolSandbox()
        let store = try await sandbox.seededStore(count: 30)
        for compact in [false, true] {
            let destination = sandbox.path(compact ? "compact" : "plain")
            let run = try await sandbox.run(["backup", store, destination] + (compact ? ["--compact"] : []))
            #expect(run.status == 0, "\(run)")
            let summary = try run.json()
            #expect(summary["compact"] as? Bool == compact)
            #expect((summary["bytes"] as? Int ?? 0) > 0)
            let original = try await sandbox.run("export", store, "Message")
            let copy = try await sandbox.run("export", destination, "Message")
            #expect(copy.output == original.output)
        }
        let notEmpty = try await sandbox.run("backup", store, sandbox.path("plain"))
        #expect(notEmpty.status == 5)
        #expect(
            notEmpty.errors == "datastore: the backup destination \(sandbox.path("plain")) is not empty "
                + "(it holds data.mdb, lock.mdb)\n")
    }

    @Test func compactKeepsEveryDocumentInFewerPages() async throws {
        let sandbox = try ToolSandbox()
        // Ids in random order, so pages split as random inserts split them.
        let lines = (0..<3_000).shuffled().map { i in
            "{\"id\": \"m\(i)\", \"created_ts\": \(Double.random(in: 0..<1e9)), \"text\": \"message \(i)\"}"
        }
        let file = try sandbox.write(lines.joined(separator: "\n") + "\n", to: "seed.jsonl")
        let store = sandbox.path("store")
        #expect(try await sandbox.run("import", store, "Message", file, "--create").status == 0)
        #expect(try await sandbox.run("index", "add", store, "Message", "created_ts").status == 0)
        let before = try await sandbox.run("export", store, "Message")

        let run = try await sandbox.run("compact", store, "Message")
        #expect(run.status == 0, "\(run)")
        let summary = try run.json()
        let (bytesBefore, bytesAfter) = (summary["bytesBefore"] as? Int ?? 0, summary["bytesAfter"] as? Int ?? 0)
        #expect(bytesAfter > 0 && Double(bytesAfter) < 0.8 * Double(bytesBefore), "\(summary)")
        #expect(try await sandbox.run("export", store, "Message").output == before.output)
        #expect(try await sandbox.run("check", store).status == 0)

        let table = try await sandbox.run("compact", store, "Message", "--table")
        #expect(table.output.hasPrefix("compacted Message: its records and indexes took "), "\(table)")
        let missing = try await sandbox.run("compact", store, "Messages")
        #expect(missing.status == 3)
        #expect(
            missing.errors
                == "datastore: no collection Messages in the store at \(store); the collections are Message\n")
    }
}
