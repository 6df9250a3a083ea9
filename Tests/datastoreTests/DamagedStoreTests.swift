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

    @Test("a page overwritten with noise, or a damaged meta page: check exits 1 naming what is damaged, never crashing")
    func damagedPages() async throws {
        let sandbox = try ToolSandbox()
        let store = try await sandbox.seededStore(count: 3_000)
        let added = try await sandbox.run("index", "add", store, "Message", "created_ts")
        try #require(added.status == 0, "\(added)")
        let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))
        let file = store + "/data.mdb"
        let original = try Data(contentsOf: URL(fileURLWithPath: file))
        // Every fifth page in turn (the others are alike); some are free pages or the change feed's.
        var named = 0
        var pagesTried = 0
        for page in stride(from: 2, to: original.count / pageSize, by: 5) {
            var damaged = original
            damaged.replaceSubrange(
                (page * pageSize)..<((page + 1) * pageSize),
                with: (0..<pageSize).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ page) })
            try damaged.write(to: URL(fileURLWithPath: file))
            let run = try await sandbox.run("check", store, "--json")
            #expect(run.status == 0 || run.status == 1, "page \(page): \(run)")
            if run.status == 1, run.output.contains("\"collection\":\"Message\"") { named += 1 }
            pagesTried += 1
        }
        #expect(named >= pagesTried / 4, "\(named) of \(pagesTried) damaged pages were named")
        var meta = original
        meta.replaceSubrange(40..<44, with: [0x99, 0x99, 0x99, 0x99])
        try meta.write(to: URL(fileURLWithPath: file))
        let run = try await sandbox.run("check", store, "--table")
        #expect(run.status == 1 && run.output.contains("meta page"), "\(run)")
    }
}
