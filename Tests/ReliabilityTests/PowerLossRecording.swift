import DataStoreKit
import Foundation
import TestSupport

/// Runs the crash helper's `powerloss` workload under the recorder and reads its log.
enum PowerLossRecording {
    /// Runs the workload on `<directory>/store`, recording the writes to that directory's files
    /// from before the store directory exists, and returns the log.
    static func record(in directory: String, durability: Durability, workers: Int = 4, count: Int = 30) async throws
        -> PowerLossLog
    {
        let recorder = try recorderPath(scratch: directory)
        let logPath = "\(directory)/writes.log"
        let process = Process()
        process.executableURL = try ChildProcess.helperURL()
        process.arguments = [
            "powerloss", "\(directory)/store", "--workers", "\(workers)", "--count", "\(count)",
            "--durability", durability == .relaxed ? "relaxed" : "durable"
        ]
        var environment = ProcessInfo.processInfo.environment
        environment["LD_PRELOAD"] = recorder
        environment["POWERLOSS_LOG"] = logPath
        environment["POWERLOSS_DIR"] = URL(fileURLWithPath: directory).resolvingSymlinksInPath().path
        process.environment = environment
        guard FileManager.default.createFile(atPath: "\(directory)/stdout", contents: nil) else {
            throw LogError("cannot create \(directory)/stdout")
        }
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: "\(directory)/stdout"))
        process.standardError = FileHandle.standardError
        try launch(process)
        while process.isRunning { try await Task.sleep(nanoseconds: 20_000_000) }
        guard process.terminationReason == .exit, process.terminationStatus == 0 else {
            let printed = (try? String(contentsOfFile: "\(directory)/stdout", encoding: .utf8)) ?? ""
            throw LogError(
                "the powerloss workload ended with status \(process.terminationStatus): \(printed.suffix(400))")
        }
        return try PowerLossLog(path: logPath)
    }

    /// `POWERLOSS_RECORDER` (built by the Makefile), or the recorder compiled with `cc` from
    /// `Tests/PowerLoss/recorder.c` into `scratch`.
    static func recorderPath(scratch: String) throws -> String {
        if let path = ProcessInfo.processInfo.environment["POWERLOSS_RECORDER"] {
            // A missing library would only show later as a helper that wrote no log.
            guard FileManager.default.fileExists(atPath: path) else {
                throw LogError("POWERLOSS_RECORDER names \(path), which does not exist (make builds it)")
            }
            return path
        }
        let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("PowerLoss/recorder.c").path
        let output = "\(scratch)/librecorder.so"
        let compiler = Process()
        compiler.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        compiler.arguments = [
            "cc", "-shared", "-fPIC", "-O2", "-Wall", "-Wextra", "-o", output, source, "-ldl", "-lpthread"
        ]
        try launch(compiler)
        compiler.waitUntilExit()
        guard compiler.terminationStatus == 0 else { throw LogError("cc could not build the recorder from \(source)") }
        return output
    }
}
