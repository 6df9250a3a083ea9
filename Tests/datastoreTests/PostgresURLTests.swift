import Foundation
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
    }
}
