import DataStoreCore
import DataStoreKit
import Foundation
import TestSupport
import Synchronization
import Testing

@Suite("changes command")
struct ChangesCommandTests {
    @Test("prints every recorded commit as a JSON line, oldest first; --collection and --after narrow it")
    func printsTheFeed() async throws {
        let sandbox = try ToolSandbox()
        let path = try await sandbox.seededStore(count: 4)
        let added = try await sandbox.run("add", path, "Other", #"{"id": "x"}"#)
        #expect(added.status == 0, "\(added)")
        let removed = try await sandbox.run("remove", path, "Message", "2")
        #expect(removed.status == 0, "\(removed)")

        let run = try await sandbox.run("changes", path)
        #expect(run.status == 0, "\(run)")
        let lines = try run.jsonLines()
        let commits = lines.compactMap { $0["commit"] as? Int }
        #expect(commits.count == lines.count && commits == commits.sorted() && Set(commits).count == commits.count)
        let changes = lines.flatMap { $0["changes"] as? [[String: Any]] ?? [] }
        let inserted = changes.filter { $0["collection"] as? String == "Message" }.flatMap {
            $0["inserted"] as? [Int] ?? []
        }
        #expect(Set(inserted) == [0, 1, 2, 3])
        #expect(changes.last?["removed"] as? [Int] == [2])
        #expect(lines.allSatisfy { ($0["time"] as? String)?.hasSuffix("Z") == true }, "\(run)")

        let other = try await sandbox.run("changes", path, "--collection", "Other")
        let otherLines = try other.jsonLines()
        #expect(otherLines.count == 1, "\(other)")
        #expect((otherLines.first?["changes"] as? [[String: Any]])?.first?["inserted"] as? [String] == ["x"])

        let after = try await sandbox.run("changes", path, "--after", "\(commits[commits.count - 2])")
        #expect(try after.jsonLines().compactMap { $0["commit"] as? Int } == [commits.last!], "\(after)")
    }

    @Test("--follow prints a commit another process makes after it started")
    func follows() async throws {
        let sandbox = try ToolSandbox()
        let path = try await sandbox.seededStore(count: 1)
        let process = Process()
        process.executableURL = try ToolSandbox.executable()
        process.arguments = ["changes", path, "--follow", "--collection", "Message"]
        let pipe = Pipe()
        process.standardOutput = pipe
        try launch(process)
        defer { if process.isRunning { process.terminate() } }
        let lines = LineCollector(pipe.fileHandleForReading)
        #expect(try await lines.first { $0.contains("\"inserted\":[0]") } != nil, "the seeded commit")
        let added = try await sandbox.run("add", path, "Message", #"{"id": "late"}"#)
        #expect(added.status == 0, "\(added)")
        let late = try await lines.first { $0.contains("\"late\"") }
        #expect(late?.hasPrefix("{\"changes\":[{\"collection\":\"Message\"") == true, "\(lines.all)")
        process.terminate()
        process.waitUntilExit()
    }

    @Test("a misspelt collection, a commit the store never made and a bad number are named errors")
    func badArguments() async throws {
        let sandbox = try ToolSandbox()
        let path = try await sandbox.seededStore(count: 1)
        let misspelt = try await sandbox.run("changes", path, "--collection", "Mesage")
        #expect(misspelt.status == 3 && misspelt.errors.contains("did you mean Message?"), "\(misspelt)")
        let future = try await sandbox.run("changes", path, "--after", "999999")
        #expect(future.status == 4 && future.errors.contains("999999"), "\(future)")
        let word = try await sandbox.run("changes", path, "--after", "latest")
        #expect(word.status == 2 && word.errors.contains("--after"), "\(word)")
    }
}

/// The lines a child prints, gathered on a thread of its own.
final class LineCollector: Sendable {
    private let text = Mutex("")

    init(_ handle: FileHandle) {
        Thread { [self] in
            while case let data = handle.availableData, !data.isEmpty {
                text.withLock { $0 += String(decoding: data, as: UTF8.self) }
            }
        }.start()
    }

    var all: [String] { text.withLock { $0 }.split(separator: "\n").map(String.init) }

    /// The first complete line satisfying `predicate`, waiting for it (bounded, so a broken
    /// `--follow` fails the test instead of hanging it).
    func first(where predicate: (String) -> Bool) async throws -> String? {
        for _ in 0..<3_000 {
            let complete = text.withLock { $0 }.split(separator: "\n", omittingEmptySubsequences: true)
            if let line = complete.map(String.init).first(where: predicate) { return line }
            try await Task.sleep(nanoseconds: 10_000_000)
        }
        return nil
    }
}
