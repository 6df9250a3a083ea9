import DataStoreCrashHelper
import DataStoreKit
import Foundation
import TestSupport

/// One run of the crash helper's `inspect` mode over a list of store directories, and what it
/// printed about each image it finished.
struct InspectRun {
    /// What the helper read from one reopened image.
    struct Image {
        var items: [CrashItem] = []
        var ledger: [LedgerEntry] = []
        var heads: [WorkerHead] = []
        /// `check()` problems, and failures while reading.
        var problems: [String] = []
        var openFailure: String?
        var probe: String?
    }

    /// The images finished, in list order (fewer than listed when the helper died).
    private(set) var images: [Image] = []
    /// How the helper ended, and the end of what it wrote to standard error.
    let ending: String
    let errors: String

    /// Runs the helper on `paths` (bounded: 10 minutes) and reads its output.
    init(paths: [String], durability: Durability, scratch: String) throws {
        let list = "\(scratch)/inspect.list", output = "\(scratch)/inspect.out", errorPath = "\(scratch)/inspect.err"
        try paths.joined(separator: "\n").write(toFile: list, atomically: true, encoding: .utf8)
        for file in [output, errorPath] {
            guard FileManager.default.createFile(atPath: file, contents: nil) else {
                throw LogError("cannot create \(file)")
            }
        }
        let process = Process()
        process.executableURL = try ChildProcess.helperURL()
        process.arguments = ["inspect", list, "--durability", durability == .relaxed ? "relaxed" : "durable"]
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: output))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errorPath))
        try launch(process)
        let deadline = Date().addingTimeInterval(600)
        while process.isRunning && Date() < deadline { usleep(2_000) }
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        ending =
            process.terminationReason == .exit
            ? "exit status \(process.terminationStatus)"
            : "signal \(process.terminationStatus)"
        errors = (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? ""
        try parse(String(decoding: FileManager.default.contents(atPath: output) ?? Data(), as: UTF8.self))
    }

    private mutating func parse(_ text: String) throws {
        let decoder = JSONDecoder()
        var current: Image?
        for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
            let space = line.firstIndex(of: " ") ?? line.endIndex
            let word = line[..<space], rest = line[space...].dropFirst()
            switch word {
            case "IMAGE": current = Image()
            case "END":
                if let image = current { images.append(image) }
                current = nil
            case "ITEM": current?.items.append(try decoder.decode(CrashItem.self, from: Data(rest.utf8)))
            case "LEDGER": current?.ledger.append(try decoder.decode(LedgerEntry.self, from: Data(rest.utf8)))
            case "HEAD": current?.heads.append(try decoder.decode(WorkerHead.self, from: Data(rest.utf8)))
            case "PROBLEM": current?.problems.append("check(): " + rest)
            case "OPENFAIL": current?.openFailure = String(rest)
            case "PROBE": current?.probe = String(rest)
            default: break
            }
        }
    }
}
