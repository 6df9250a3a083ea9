// What goes in through the tool comes out bit for bit, or is refused: doubles, Int64's edges,
// integers that do not fit, and text that is not UTF-8 wherever it is given.
import DataStoreCore
import Foundation
import ModelConformance
import Testing

@Suite("exact input")
struct ExactInputTests {
    @Test("a million random doubles imported and exported come back bit-identical")
    func doublesThroughImportAndExport() async throws {
        let sandbox = try ToolSandbox()
        let doubles = NumberSamples.doubles(count: 1_000_000, seed: 0x1A2B_3C4D)
        let perLine = 1_000
        var lines = ""
        for line in 0..<doubles.count / perLine {
            let values = doubles[line * perLine..<(line + 1) * perLine].map(Value.double)
            lines += try JSONForm.text(.object(["id": .int(Int64(line)), "x": .array(values)])) + "\n"
        }
        let file = try sandbox.write(lines, to: "doubles.jsonl")
        let imported = try await sandbox.run("import", sandbox.path("store"), "D", file, "--create")
        try #require(imported.status == 0, "\(imported)")
        let exported = try await sandbox.run("export", sandbox.path("store"), "D")
        try #require(exported.status == 0, "\(exported.errors)")
        var comparison = NumberSamples.BitComparison()
        for text in exported.lines {
            let document = try #require(try JSONForm.value(Array(text.utf8)).objectValue)
            let line = try #require(document["id"]?.intValue)
            let values = try #require(document["x"]?.arrayValue)
            comparison.compare(values, with: doubles[(Int(line) * perLine)...])
        }
        #expect(comparison.identical == doubles.count)
        #expect(comparison.mismatches.isEmpty, "\(comparison.mismatches)")
    }

    @Test("Int64's edges are stored as integers and found by equality; an integer beyond them is refused")
    func integerEdges() async throws {
        let sandbox = try ToolSandbox()
        let store = sandbox.path("store")
        let lines = NumberSamples.integerEdges.enumerated().map { "{\"id\": \($0.offset), \"x\": \($0.element)}" }
        let file = try sandbox.write(lines.joined(separator: "\n") + "\n", to: "edges.jsonl")
        let imported = try await sandbox.run("import", store, "N", file, "--create")
        try #require(imported.status == 0, "\(imported)")
        for (id, integer) in NumberSamples.integerEdges.enumerated() {
            let found = try await sandbox.run("query", store, "N", "{\"x\": \(integer)}")
            #expect(found.output == "{\"id\":\(id),\"x\":\(integer)}\n", "x = \(integer): \(found)")
        }
        for tooLarge in [
            "9223372036854775808", "-9223372036854775809", "18446744073709551616",
            "123456789012345678901234567890"
        ] {
            let put = try await sandbox.run("put", store, "N", "big", "{\"x\": \(tooLarge)}")
            #expect(put.status == 4, "\(put)")
            #expect(put.errors.contains("outOfRange in field 'x'") && put.errors.contains(tooLarge), "\(put.errors)")
            let line = try await sandbox.run("import", store, "N", input: "{\"id\": \"big\", \"x\": [\(tooLarge)]}\n")
            #expect(line.status == 4, "\(line)")
            #expect(line.errors.contains("in field 'x[0]'"), "\(line.errors)")
        }
        let count = try await sandbox.run("query", store, "N", "--count")
        #expect(count.output == "{\"count\":\(NumberSamples.integerEdges.count)}\n")
    }

    @Test("text that is not UTF-8 is refused the same on the command line and on standard input")
    func invalidUTF8() async throws {
        let sandbox = try ToolSandbox()
        let store = try await sandbox.seededStore(count: 1)
        let tool = try ToolSandbox.executable().path
        // Foundation's Process takes String arguments, so a shell writes the raw byte 0xFF.
        let argument = try await sandbox.run(
            shell: #"exec "$0" put "$1" Message e "$(printf '{"t":"\377"}')""#,
            tool, store)
        #expect(argument.status == 4, "\(argument)")
        #expect(argument.errors.contains("argument 5 is not valid UTF-8"), "\(argument.errors)")
        let piped = try await sandbox.run(shell: #"printf '{"t":"\377"}' | "$0" put "$1" Message e -"#, tool, store)
        #expect(piped.status == 4, "\(piped)")
        #expect(piped.errors.contains("not valid UTF-8"), "\(piped.errors)")
        let inQuery = try await sandbox.run(
            shell: #"exec "$0" query "$1" Message "$(printf '{"t":"\377"}')""#, tool, store)
        #expect(inQuery.status == 4, "\(inQuery)")
        let count = try await sandbox.run("query", store, "Message", "--count")
        #expect(count.output == "{\"count\":1}\n", "nothing was stored: \(count)")
    }
}

extension ToolSandbox {
    /// Runs `script` under `/bin/sh -c`, with `arguments` as `$0`, `$1`, ….
    func run(shell script: String, _ arguments: String...) async throws -> ToolRun {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", script] + arguments
        process.currentDirectoryURL = directory
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        try launch(process)
        let out = output.fileHandleForReading.readDataToEndOfFile()
        let err = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return ToolRun(
            status: process.terminationStatus, output: String(decoding: out, as: UTF8.self),
            errors: String(decoding: err, as: UTF8.self))
    }
}
