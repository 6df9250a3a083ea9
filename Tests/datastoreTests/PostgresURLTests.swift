import DataStorePostgres
import Foundation
import ModelConformance
import Testing

/// Every document command on a `postgresql://` URL where it takes a store directory, and moving a
/// store with `export DIR C | import URL C - --create`.
@Suite(
    "datastore on a postgresql:// URL",
    .enabled(
        if: ProcessInfo.processInfo.environment["PGHOST"] != nil,
        "no PostgreSQL server: PGHOST is not set (run `make test`, which starts one)"))
struct PostgresURLTests {
    /// The URL of the server the `PG*` variables name.
    static var url: String {
        let environment = ProcessInfo.processInfo.environment
        return "postgresql://\(environment["PGUSER"] ?? "postgres")@\(environment["PGHOST"] ?? "127.0.0.1"):"
            + "\(environment["PGPORT"] ?? "5432")/\(environment["PGDATABASE"] ?? "postgres")"
    }

    @Test("add, put, get, query, remove and export on a URL; a store moved with export | import")
    func documentCommands() async throws {
        let sandbox = try ToolSandbox()
        let name = "cli-\(UUID().uuidString.prefix(8))"
        let added = try await sandbox.run("add", Self.url, name, #"{"id": 1, "a": "x"}"#, "--create")
        #expect(added.status == 0, "\(added)")
        let put = try await sandbox.run("put", Self.url, name, "2", #"{"a": "y"}"#)
        #expect(put.status == 0, "\(put)")
        let got = try await sandbox.run("get", Self.url, name, "1")
        #expect(got.output == #"{"a":"x","id":1}"# + "\n", "\(got)")
        let counted = try await sandbox.run("query", Self.url, name, #"{"a": "y"}"#, "--count")
        #expect(counted.output == #"{"count":1}"# + "\n", "\(counted)")
        let removed = try await sandbox.run("remove", Self.url, name, "1")
        #expect(removed.status == 0, "\(removed)")
        let missing = try await sandbox.run("get", Self.url, name, "1")
        #expect(missing.status != 0)

        let store = try await sandbox.seededStore(count: 25)
        let exported = try await sandbox.run("export", store, "Message")
        let moved = "moved-\(UUID().uuidString.prefix(8))"
        let imported = try await sandbox.run("import", Self.url, moved, "-", "--create", input: exported.output)
        #expect(imported.status == 0, "\(imported)")
        let again = try await sandbox.run("export", Self.url, moved)
        #expect(again.lines == exported.lines)

        // Pages on the server resume from their token, as on a directory.
        var ids: [Int] = []
        var after: [String] = []
        for _ in 0..<9 {
            let page = try await sandbox.run(["query", Self.url, moved, "--page", "10", "--sort", "id"] + after)
            #expect(page.status == 0, "\(page)")
            ids += try page.jsonLines().compactMap { $0["id"] as? Int }
            let note = page.errors.split(separator: "\n").first { $0.hasPrefix("datastore: more results: --after ") }
            after = note.map { ["--after", String($0.dropFirst("datastore: more results: --after ".count))] } ?? []
            if after.isEmpty { break }
        }
        #expect(ids == Array(0..<25))
        let streamed = try await sandbox.run("query", Self.url, moved, #"{"id >=": 20}"#, "--json")
        #expect(try streamed.jsonLines().compactMap { $0["id"] as? Int } == [20, 21, 22, 23, 24], "\(streamed)")
    }

    @Test("index add, list and drop, stats, check (clean, then a damaged row) and changes on a URL")
    func maintenanceCommands() async throws {
        let sandbox = try ToolSandbox()
        let name = "cli-m-\(UUID().uuidString.prefix(8))"
        let lines = (0..<12).map { #"{"id": \#($0), "n": \#($0 % 4), "tags": ["a", "b"]}"# }.joined(separator: "\n")
        let imported = try await sandbox.run("import", Self.url, name, "-", "--create", input: lines + "\n")
        #expect(imported.status == 0, "\(imported)")
        let added = try await sandbox.run("index", "add", Self.url, name, "n", "--table")
        #expect(added.status == 0 && added.output.contains("12 entries"), "\(added)")
        let multi = try await sandbox.run("index", "add", Self.url, name, "tags", "--multi-value", "--table")
        #expect(multi.status == 0 && multi.output.contains("24 entries"), "\(multi)")
        let listed = try await sandbox.run("index", "list", Self.url, name, "--json")
        let indexes = try listed.json()["indexes"] as? [[String: Any]] ?? []
        #expect(indexes.compactMap { $0["name"] as? String } == ["n", "tags"], "\(listed)")
        #expect(indexes.compactMap { $0["entries"] as? Int } == [12, 24], "\(listed)")

        let stats = try await sandbox.run("stats", Self.url, "--json")
        let collections = try stats.json()["collections"] as? [[String: Any]] ?? []
        let mine = collections.first { $0["name"] as? String == name }
        #expect(mine?["documents"] as? Int == 12, "\(stats)")
        let table = try await sandbox.run("stats", Self.url, "--table")
        #expect(table.status == 0 && table.output.contains("PostgreSQL") && table.output.contains(name), "\(table)")

        let clean = try await sandbox.run("check", Self.url, name, "--table")
        #expect(clean.status == 0 && clean.output.contains("no problems in 1 collection"), "\(clean)")
        let connection = try Connection("")
        let tag = try connection.execute("SELECT tag::text FROM _meta WHERE collection = $1", [.text(name)]).text(0, 0)
        try connection.execute("UPDATE dsk_c\(tag ?? "0") SET doc = '{}'::jsonb WHERE doc->>'id' = '5'")
        let damaged = try await sandbox.run("check", Self.url, name, "--json")
        #expect(damaged.status == 1, "\(damaged)")
        let problems = try damaged.json()["problems"] as? [[String: Any]] ?? []
        #expect(problems.count == 1 && (problems.first?["message"] as? String)?.contains("jsonb") == true, "\(damaged)")

        let dropped = try await sandbox.run("index", "drop", Self.url, name, "n", "--table")
        #expect(dropped.status == 0 && dropped.output.contains("dropped index"), "\(dropped)")
        let after = try await sandbox.run("index", "list", Self.url, name, "--json")
        #expect((try after.json()["indexes"] as? [[String: Any]])?.compactMap { $0["name"] as? String } == ["tags"])

        _ = try await sandbox.run("remove", Self.url, name, "3")
        let changes = try await sandbox.run("changes", Self.url, "--collection", name)
        #expect(changes.status == 0, "\(changes)")
        let events = try changes.jsonLines().flatMap { $0["changes"] as? [[String: Any]] ?? [] }
        #expect(Set(events.flatMap { $0["inserted"] as? [Int] ?? [] }) == Set(0..<12), "\(changes)")
        #expect(events.last?["removed"] as? [Int] == [3], "\(changes)")
    }

    @Test("backup and compact on a URL are typed errors that name PostgreSQL's own tools")
    func backupAndCompactRefused() async throws {
        let sandbox = try ToolSandbox()
        let copy = sandbox.directory.appendingPathComponent("copy").path
        let run = try await sandbox.run("backup", Self.url, copy)
        #expect(run.status == 4 && run.errors.contains("pg_dump"), "\(run)")
        #expect(!FileManager.default.fileExists(atPath: copy))
        let name = "cli-c-\(UUID().uuidString.prefix(8))"
        #expect(try await sandbox.run("add", Self.url, name, #"{"id": 1}"#, "--create").status == 0)
        let compact = try await sandbox.run("compact", Self.url, name)
        #expect(compact.status == 4 && compact.errors.contains("VACUUM FULL"), "\(compact)")
    }

    @Test("a mistyped URL exits 4 naming what is wrong, a missing database 3, before any wait")
    func urlMistakes() async throws {
        let sandbox = try ToolSandbox()
        let environment = ProcessInfo.processInfo.environment
        let server = "\(environment["PGHOST"] ?? "127.0.0.1"):\(environment["PGPORT"] ?? "5432")"
        let cases: [(url: String, status: Int32, says: String)] = [
            ("postgresql://dsk@127.0.0.1:notaport/postgres", 4, "port"),
            ("mysql://dsk@127.0.0.1:3306/app", 4, "scheme mysql"),
            ("postgresql://%zz@127.0.0.1/postgres", 4, "malformed"),
            ("postgres://dsk@127.0.0.1/postgres?bogus=1", 4, "bogus"),
            (
                "postgresql://\(environment["PGUSER"] ?? "dsk")@\(server)/no_such_database_\(UUID().uuidString.prefix(6))",
                3,
                "no such database"
            )
        ]
        for (url, status, says) in cases {
            let run = try await sandbox.run("query", url, "Message", "{}", "--count")
            #expect(run.status == status, "\(url): \(run)")
            #expect(run.errors.contains(says), "\(url): \(run)")
        }
    }

    @Test(
        "with the server stopped, a command on its URL exits 5 naming the connect bound instead of waiting",
        .enabled(if: TestCluster.isAvailable))
    func stoppedServer() async throws {
        let cluster = try await onOwnThread { try TestCluster() }
        defer { cluster.remove() }
        let sandbox = try ToolSandbox()
        let created = try await sandbox.run("add", cluster.postgresURL, "M", #"{"id": 1}"#, "--create")
        #expect(created.status == 0, "\(created)")
        cluster.freeze()
        let counted = try await sandbox.run("count", cluster.postgresURL, "M", "{}")
        #expect(counted.status == 5, "\(counted)")
        #expect(counted.errors.contains("connect"), "\(counted)")
        cluster.thaw()
        let again = try await sandbox.run("changes", cluster.postgresURL, "--json")
        #expect(again.status == 0 && again.lines.count == 1, "\(again)")
    }
}
