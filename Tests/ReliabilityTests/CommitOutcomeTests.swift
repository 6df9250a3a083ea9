import DataStoreCore
import DataStoreKit
import Foundation
import TestSupport
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
        let compiled = try await runProcess(
            "/usr/bin/env", ["cc", "-shared", "-fPIC", "-O2", "-o", library, source, "-ldl"])
        try #require(compiled.status == 0, "cc could not build \(source): \(compiled)")

        let store = "\(scratch)/store"
        let trigger = "\(scratch)/fail-next-meta-write"
        let run = try await runProcess(
            try ChildProcess.helperURL().path, ["failing-commit", store, "--trigger", trigger],
            environment: ["LD_PRELOAD": library, "DATASTORE_FAIL_META_WRITE": trigger])
        let printed = run.output
        let lines = printed.split(separator: "\n").map(String.init)
        #expect(run.status == 0, "\(run)")
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
