import Foundation
import TestSupport
import Testing

/// What one run of the built `datastore` tool did.
struct ToolRun: CustomStringConvertible {
    var status: Int32
    var output: String
    var errors: String

    /// Standard output's lines, without the last empty one.
    var lines: [String] { output.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init) }

    /// Standard output parsed as one JSON object.
    func json() throws -> [String: Any] {
        let object = try JSONSerialization.jsonObject(with: Data(output.utf8))
        return try #require(object as? [String: Any], "not a JSON object: \(output)")
    }

    /// Standard output parsed as JSON Lines.
    func jsonLines() throws -> [[String: Any]] {
        try lines.map { line in
            try #require(
                try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "not an object: \(line)")
        }
    }

    var description: String { "exit \(status)\nstdout: \(output)\nstderr: \(errors)" }
}

/// Runs the built tool as a process, and owns a temporary directory for its stores.
final class ToolSandbox {
    /// A fresh directory, removed when the sandbox goes.
    let directory: URL

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("datastore-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: directory)
    }

    /// The path of `name` inside the sandbox.
    func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    /// Writes `text` to the file `name` in the sandbox and returns its path.
    @discardableResult
    func write(_ text: String, to name: String) throws -> String {
        try Data(text.utf8).write(to: directory.appendingPathComponent(name))
        return path(name)
    }

    /// Runs `datastore arguments…` with `input` on standard input (empty when `nil`).
    func run(_ arguments: String..., input: String? = nil) async throws -> ToolRun {
        try await run(arguments, input: input)
    }

    func run(_ arguments: [String], input: String? = nil) async throws -> ToolRun {
        let id = UUID().uuidString
        let inputURL = directory.appendingPathComponent("stdin-\(id)")
        let outputURL = directory.appendingPathComponent("stdout-\(id)")
        let errorsURL = directory.appendingPathComponent("stderr-\(id)")
        try Data((input ?? "").utf8).write(to: inputURL)
        try Data().write(to: outputURL)
        try Data().write(to: errorsURL)
        defer {
            for url in [inputURL, outputURL, errorsURL] { try? FileManager.default.removeItem(at: url) }
        }
        let process = Process()
        process.executableURL = try ToolSandbox.executable()
        process.arguments = arguments
        process.currentDirectoryURL = directory
        process.standardInput = try FileHandle(forReadingFrom: inputURL)
        process.standardOutput = try FileHandle(forWritingTo: outputURL)
        process.standardError = try FileHandle(forWritingTo: errorsURL)
        let status: Int32 = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { finished in continuation.resume(returning: finished.terminationStatus) }
            do { try launch(process) } catch { continuation.resume(throwing: error) }
        }
        return ToolRun(
            status: status,
            output: String(decoding: try Data(contentsOf: outputURL), as: UTF8.self),
            errors: String(decoding: try Data(contentsOf: errorsURL), as: UTF8.self))
    }

    /// A store `name` holding the collection `Message` with `count` documents
    /// `{"id": i, "created_ts": 1437108600 + i, "from_user_key": "u<i % 3>", "text": "message i"}`.
    func seededStore(_ name: String = "store", count: Int = 10) async throws -> String {
        let lines = (0..<count).map { i in
            "{\"id\": \(i), \"created_ts\": \(1437108600 + i), \"from_user_key\": \"u\(i % 3)\", \"text\": \"message \(i)\"}"
        }
        let file = try write(lines.joined(separator: "\n") + "\n", to: "\(name)-seed.jsonl")
        let store = path(name)
        let run = try await self.run("import", store, "Message", file, "--create")
        try #require(run.status == 0, "seeding failed: \(run)")
        return store
    }

    /// The built `datastore` executable: next to the test bundle (the build products directory),
    /// or `DATASTORE_TOOL` when set.
    static func executable() throws -> URL {
        if let path = ProcessInfo.processInfo.environment["DATASTORE_TOOL"] { return URL(fileURLWithPath: path) }
        var candidates: [URL] = []
        if let runner = ProcessInfo.processInfo.arguments.first {
            var directory = URL(fileURLWithPath: runner).deletingLastPathComponent()
            // On macOS the runner sits inside Foo.xctest/Contents/MacOS.
            while directory.path.contains(".xctest") { directory.deleteLastPathComponent() }
            candidates.append(directory.appendingPathComponent("datastore"))
        }
        candidates.append(Bundle.main.bundleURL.appendingPathComponent("datastore"))
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        candidates.append(repository.appendingPathComponent(".build/debug/datastore"))
        guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0.path) }) else {
            throw ToolNotBuilt(candidates: candidates.map(\.path))
        }
        return found
    }
}

struct ToolNotBuilt: Error, CustomStringConvertible {
    var candidates: [String]
    var description: String { "the datastore executable is not built; looked at " + candidates.joined(separator: ", ") }
}
