// Every command over a store whose data file was cut short ends with the storage exit code and
// a message naming the sizes, instead of dying of SIGBUS at the first read.
import Foundation
import Testing

@Suite("damaged stores")
struct DamagedStoreTests {
    @Test("a truncated data.mdb is refused by every command that opens the store")
    func truncatedDataFile() async throws {
        let sandbox = try ToolSandbox()
        let store = try await sandbox.seededStore(count: 2_000)
        #expect(truncate(store + "/data.mdb", 8_192) == 0)
        for arguments in [
            ["check", store], ["stats", store], ["get", store, "Message", "1"],
            ["query", store, "Message", "{}"], ["export", store, "Message"]
        ] {
            let run = try await sandbox.run(arguments)
            #expect(run.status == 5, "\(arguments[0]): \(run)")
            #expect(run.errors.contains("data.mdb is 8192 bytes"), "\(arguments[0]): \(run.errors)")
        }
    }
}
