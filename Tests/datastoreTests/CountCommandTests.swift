// `query --count` counts every match, whatever --limit and --offset say.
import Foundation
import Testing

@Suite("query --count")
struct CountCommandTests {
    @Test("--count counts every match, not the window left by --limit and --offset")
    func countsEveryMatch() async throws {
        let sandbox = try ToolSandbox()
        let store = try await sandbox.seededStore(count: 30)
        let all = try await sandbox.run(
            "query", store, "Message", #"{"from_user_key": "u1"}"#, "--count", "--limit", "3",
            "--offset", "2")
        #expect(all.output == #"{"count":10}"# + "\n", "\(all)")
        let range = try await sandbox.run(
            "query", store, "Message", #"{"created_ts >=": 1437108610}"#, "--count", "--table")
        #expect(range.output == "20\n", "\(range)")
    }
}
