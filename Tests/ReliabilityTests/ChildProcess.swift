import Foundation
import TestSupport
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The crash helper (`DataStoreCrashHelper`) running as a child process, with its standard output
/// collected line by line on a thread of its own (so the child never blocks on a full pipe).
final class ChildProcess: @unchecked Sendable {
    // @unchecked Sendable: `process` is only started, signalled and waited on by the test that owns
    // this object; the collected output is behind a Mutex.

    private let process = Process()
    private let output = OutputBuffer()
    private let finishedReading = DispatchSemaphore(value: 0)

    /// Starts the helper with `arguments` (mode, directory, options).
    init(_ arguments: [String]) throws {
        process.executableURL = try Self.helperURL()
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.standardError
        try launch(process)
        let reader = pipe.fileHandleForReading
        let output = self.output
        let finished = finishedReading
        let thread = Thread {
            while true {
                let data = reader.availableData
                if data.isEmpty { break }
                output.bytes.withLock { $0 += data }
            }
            finished.signal()
        }
        thread.start()
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }

    var pid: Int32 { process.processIdentifier }

    /// The complete lines printed so far (a torn last line is left out).
    var lines: [String] {
        let bytes = output.bytes.withLock { $0 }
        guard let end = bytes.lastIndex(of: UInt8(ascii: "\n")) else { return [] }
        return String(decoding: bytes[...end], as: UTF8.self).split(separator: "\n").map(String.init)
    }

    /// Waits (polling, bounded) for a line starting with `prefix`, and returns it.
    @discardableResult
    func waitForLine(startingWith prefix: String, timeout: Double = 120) async throws -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let line = lines.first(where: { $0.hasPrefix(prefix) }) { return line }
            if !process.isRunning {
                // Read what is left, then look once more.
                finishedReading.wait()
                finishedReading.signal()
                return lines.first(where: { $0.hasPrefix(prefix) })
            }
            try await Task.sleep(nanoseconds: 2_000_000)
        }
        return nil
    }

    /// Kills the child with SIGKILL and waits until it is gone and its output read (a moment: a
    /// killed process exits at once, so this may block the caller's thread).
    func killNow() {
        kill(process.processIdentifier, SIGKILL)
        waitForExitBlocking(timeout: 120)
    }

    /// Waits for the child to exit (bounded by `timeout` seconds, then SIGKILL) and for its output,
    /// on a thread of its own. Returns whether it exited on its own.
    @discardableResult
    func waitForExit(timeout: Double = 120) async -> Bool {
        await onOwnThread { self.waitForExitBlocking(timeout: timeout) }
    }

    /// ``waitForExit(timeout:)`` on the caller's thread.
    @discardableResult
    func waitForExitBlocking(timeout: Double) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(5_000) }
        let onItsOwn = !process.isRunning
        if !onItsOwn { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        finishedReading.wait()
        finishedReading.signal()
        return onItsOwn
    }

    /// Whether the child ended by SIGKILL.
    var wasKilled: Bool { process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGKILL }

    /// The exit status of a child that exited on its own.
    var exitStatus: Int32? { process.terminationReason == .exit ? process.terminationStatus : nil }

    /// The helper executable: `DATASTORE_CRASH_HELPER`, or `DataStoreCrashHelper` in the products
    /// directory that holds this test bundle.
    static func helperURL() throws -> URL {
        if let path = ProcessInfo.processInfo.environment["DATASTORE_CRASH_HELPER"] {
            return URL(fileURLWithPath: path)
        }
        var candidates: [URL] = []
        if let executable = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            candidates.append(URL(fileURLWithPath: executable).deletingLastPathComponent())
        }
        if let bundle = Bundle.main.executableURL?.deletingLastPathComponent() { candidates.append(bundle) }
        candidates.append(Bundle.main.bundleURL.deletingLastPathComponent())
        for directory in candidates {
            // On Linux the test bundle is an executable in the products directory; elsewhere it is a
            // bundle directory a few levels below it.
            var current = directory
            for _ in 0..<4 {
                let helper = current.appendingPathComponent("DataStoreCrashHelper")
                if FileManager.default.isExecutableFile(atPath: helper.path) { return helper }
                current = current.deletingLastPathComponent()
            }
        }
        throw HelperNotFound(searched: candidates.map(\.path))
    }
}

/// Bytes a child printed, appended by its reader thread.
final class OutputBuffer: Sendable {
    let bytes = Mutex<[UInt8]>([])
}

struct HelperNotFound: Error, CustomStringConvertible {
    var searched: [String]
    var description: String {
        "DataStoreCrashHelper was not found next to the test bundle (searched \(searched)); build it with "
            + "`swift build --build-tests` or set DATASTORE_CRASH_HELPER"
    }
}

/// A fresh directory path under the temporary directory (not created).
func temporaryStorePath(_ label: String) -> String {
    NSTemporaryDirectory() + "datastorekit-\(label)-\(UUID().uuidString)"
}

/// An integer from the environment, or `fallback`.
func environmentInt(_ name: String, default fallback: Int) -> Int {
    ProcessInfo.processInfo.environment[name].flatMap { Int($0) } ?? fallback
}
