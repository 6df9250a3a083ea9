import DataStoreCore
import Testing
@testable import DataStoreKit

@Suite("datastore index add --covering")
struct CoveringIndexCommandTests {
    @Test func addsACoveringIndexThatStatsAndCheckReport() async throws {
        let sandbox = try ToolSandbox()
        let store = try await sandbox.seededStore(count: 8)
        let added = try await sandbox.run("index", "add", store, "Message", "created_ts", "--covering")
        #expect(added.status == 0, "\(added)")
        let index = try #require(try added.json()["index"] as? [String: Any])
        #expect(index["covering"] as? Bool == true)
        #expect(index["entries"] as? Int == 8)
        let list = try await sandbox.run("index", "list", store, "Message", "--table")
        #expect(list.lines.contains { $0.hasPrefix("created_ts") && $0.contains("covering") }, "\(list)")
        let stats = try await sandbox.run("stats", store)
        #expect(
            try stats.json()["formatVersion"] as? Int == 3,
            "raised by the seeded saves, not lowered by a covering index")
        let checked = try await sandbox.run("check", store)
        #expect(checked.output == #"{"collections":["Message"],"ok":true,"problems":[]}"# + "\n")
    }
}
