import DataStoreCore
import DataStoreKit
import Foundation
import Testing

/// A commit that fails while LMDB writes its meta page — after the data pages, the one moment it
/// may or may not have landed — is reported as `.outcomeUnknown`, never as a plain failure a
/// caller would retry blindly, with how to find out; the store then refuses writes until reopened,
/// and reopened it holds the commit whole or not at all.
@Suite("Commit outcomes on LMDB")
struct CommitOutcomeTests {
    @Test("a meta page write that fails: .outcomeUnknown naming the commit, then reopening settles it")
    func failedMetaWrite() async throws {
        let scratch = temporaryStorePath("failing-commit")
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let library = "\(scratch)/libfailing-meta-write.so"
        let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Faults/failing-meta-write.c").path
        let compiler = Process()
        compiler.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        compiler.arguments = ["cc", "-shared", "-fPIC", "-O2", "-o", library, source, "-ldl"]
        try compiler.run()
        compiler.waitUntilExit()
        try #require(compiler.terminationStatus == 0, "cc could not build \(source)")

        let store = "\(scratch)/store"
        let trigger = "\(scratch)/fail-next-meta-write"
        let helper = Process()
        helper.executableURL = try ChildProcess.helperURL()
        helper.arguments = ["failing-commit", store, "--trigger", trigger]
        var environment = ProcessInfo.processInfo.environment
        environment["LD_PRELOAD"] = library
        environment["DATASTORE_FAIL_META_WRITE"] = trigger
        helper.environment = environment
        let output = Pipe()
        helper.standardOutput = output
        try helper.run()
        let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        helper.waitUntilExit()
        let lines = printed.split(separator: "\n").map(String.init)
        #expect(helper.terminationStatus == 0, "\(printed)")
        #expect(lines.contains("BEFORE ok"), "\(printed)")
        #expect(lines.contains("DURING outcomeUnknown"), "\(printed)")
        let message = lines.first { $0.hasPrefix("MESSAGE ") } ?? ""
        #expect(message.contains("may or may not have landed") && message.contains("reopened"), "\(message)")
        // LMDB refuses every transaction after a failed meta page write: nothing more is written.
        #expect(lines.contains("AFTER storage"), "\(printed)")

        let reopened = try DataStore.open(path: store)
        defer { reopened.close() }
        let items = try await reopened.documentCollection("items")
        let ids = try await items.all().compactMap { $0["id"]?.stringValue }
        #expect(ids.contains("before") && !ids.contains("after"), "\(ids)")
        #expect(try reopened.check().isEmpty)
        // The reopened store takes writes again.
        _ = try await items.add(object: ["id": "later"])
    }
}
