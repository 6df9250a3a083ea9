// An index added with `datastore index add` outlives the application's next start, which does
// not declare it; `stats` and `index list` say so, and `index drop` drops it.
import DataStoreCore
import DataStoreKit
import Foundation
import Testing

@Suite("index retention in the tool")
struct IndexRetentionCommandTests {
    @Test("an index added by the tool is kept when the application's declaration leaves it out")
    func addedIndexSurvivesTheApplication() async throws {
        let sandbox = try ToolSandbox()
        let store = try await sandbox.seededStore(count: 12)
        let added = try await sandbox.run("index", "add", store, "Message", "by_user", "--fields", "from_user_key")
        try #require(added.status == 0, "\(added)")
        // The application starts and declares only created_ts.
        do {
            let application = try DataStore.open(path: store)
            let messages = try await application.collection(
                "Message", mapping: .documents(idField: "id"),
                indexes: [IndexDefinition("created_ts")])
            #expect(messages.undeclaredIndexes.map(\.name) == ["by_user"])
            application.close()
        }
        let stats = try await sandbox.run("stats", store, "--json")
        let collections = try #require(try stats.json()["collections"] as? [[String: Any]])
        let indexes = try #require(collections.first?["indexes"] as? [[String: Any]])
        #expect(indexes.compactMap { $0["name"] as? String } == ["by_user", "created_ts"])
        #expect(indexes.compactMap { $0["declared"] as? Bool } == [false, true])
        #expect(indexes.first?["entries"] as? Int == 12)
        let table = try await sandbox.run("index", "list", store, "Message", "--table")
        #expect(table.output.contains("ready, not declared"), "\(table.output)")
        let query = try await sandbox.run("query", store, "Message", #"{"from_user_key": "u1"}"#, "--explain")
        #expect(query.output.contains("by_user"), "the kept index serves queries: \(query.output)")

        let dropped = try await sandbox.run("index", "drop", store, "Message", "by_user")
        #expect(dropped.status == 0, "\(dropped)")
        let after = try await sandbox.run("index", "list", store, "Message", "--json")
        #expect(!after.output.contains("by_user"), "\(after.output)")
        let unknown = try await sandbox.run("index", "drop", store, "Message", "by_user")
        #expect(unknown.status == 3, "\(unknown)")
    }
}
