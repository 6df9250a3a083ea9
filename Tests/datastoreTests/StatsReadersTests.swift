import DataStoreCore
@testable import DataStoreKit
import Foundation
import LMDB
import Testing

@Suite("stats shows readers")
struct StatsReadersTests {
    @Test func statsListsAReaderOfAnotherProcessWithItsLag() async throws {
        let sandbox = try ToolSandbox()
        let path = try await sandbox.seededStore(count: 3)
        // This test process is the other process: it holds a snapshot, then commits past it.
        let store = try DataStore.open(path: path)
        defer { store.close() }
        let messages = try await store.documentCollection("Message")
        let reader = try store.environment.beginRead()
        let snapshot = reader.snapshotID
        for id in 100..<102 {
            _ = try await messages.add(object: ["id": .int(Int64(id)), "text": "after the snapshot"])
        }

        let run = try await sandbox.run("stats", path, "--json")
        #expect(run.status == 0, "\(run)")
        let readers = try #require(try run.json()["readers"] as? [[String: Any]], "\(run)")
        let mine = try #require(readers.first { $0["pid"] as? Int == Int(getpid()) }, "readers: \(readers)")
        #expect(mine["thisProcess"] as? Bool == false)
        #expect(mine["snapshotTransactionID"] as? Int == snapshot)
        #expect((mine["commitsBehind"] as? Int ?? 0) >= 2, "\(mine)")
        #expect(mine["ageSeconds"] is NSNull, "another process's reader has no known age: \(mine)")

        let table = try await sandbox.run("stats", path, "--table")
        #expect(table.lines.contains { $0.hasPrefix("reader pid") }, "\(table)")
        let row = try #require(
            table.lines.first { $0.trimmingCharacters(in: .whitespaces).hasPrefix("\(getpid()) ") }, "\(table)")
        #expect(row.contains("other") && row.contains("transaction \(snapshot)") && row.contains("unknown"), "\(row)")
        reader.end()
    }
}
