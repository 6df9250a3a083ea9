import Foundation
import ModelConformance
import Testing

/// The chat service example (Examples/ChatService), written once against the contract, runs
/// unchanged on a directory's LMDB store and on a PostgreSQL server.
@Suite("The chat example, on both stores")
struct ChatExampleTests {
    /// The built example, next to the `datastore` tool.
    static func example() throws -> String {
        try ToolSandbox.executable().deletingLastPathComponent().appendingPathComponent("ChatExample").path
    }

    @Test("on a store directory")
    func directory() async throws {
        let directory = TemporaryDirectory("chat")
        defer { directory.remove() }
        let run = try await runProcess(try Self.example(), [directory.path])
        #expect(run.status == 0, "\(run)")
        #expect(run.output.contains("DataStore at"), "\(run)")
    }

    @Test(
        "on a postgresql:// URL",
        .enabled(if: ProcessInfo.processInfo.environment["PGHOST"] != nil, "no PostgreSQL server: PGHOST is not set"))
    func server() async throws {
        let run = try await runProcess(try Self.example(), [PostgresURLTests.url])
        #expect(run.status == 0, "\(run)")
        #expect(run.output.contains("PostgresStore at"), "\(run)")
    }
}
