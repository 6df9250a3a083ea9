public import Foundation

/// What one run of a program printed, and how it ended.
public struct ProcessRun: Sendable, CustomStringConvertible {
    public var status: Int32
    public var output: String
    public var errors: String

    public var description: String { "exit \(status)\nstdout: \(output)\nstderr: \(errors)" }
}

/// Runs `executable` with `arguments` (and `environment` added to this process's), waiting for it
/// without holding a thread: Swift's cooperative pool has one thread per core, and a test that
/// blocks one (`waitUntilExit`, `readDataToEndOfFile`) starves every other test of it meanwhile.
public func runProcess(
    _ executable: String, _ arguments: [String], environment: [String: String] = [:]
) async throws -> ProcessRun {
    let directory = NSTemporaryDirectory() + "datastorekit-run-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let outputPath = directory + "/stdout"
    let errorsPath = directory + "/stderr"
    _ = FileManager.default.createFile(atPath: outputPath, contents: nil)
    _ = FileManager.default.createFile(atPath: errorsPath, contents: nil)
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    process.standardInput = FileHandle.nullDevice
    process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: outputPath))
    process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errorsPath))
    let status: Int32 = try await withCheckedThrowingContinuation { continuation in
        process.terminationHandler = { finished in continuation.resume(returning: finished.terminationStatus) }
        do { try launch(process) } catch { continuation.resume(throwing: error) }
    }
    return ProcessRun(
        status: status,
        output: String(decoding: try Data(contentsOf: URL(fileURLWithPath: outputPath)), as: UTF8.self),
        errors: String(decoding: try Data(contentsOf: URL(fileURLWithPath: errorsPath)), as: UTF8.self))
}

/// Runs `body` on a thread of its own and waits for it without holding one of the cooperative
/// pool's (a blocking step of a test: a server started or stopped, say).
public func onOwnThread<R: Sendable>(_ body: @escaping @Sendable () throws -> R) async throws -> R {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try body() }) }.start()
    }
}

/// Starts `process`, one launch at a time across the test process: Foundation's `Process.run()`
/// crashed inside a copy (a bad pointer in `memcpy`) while hundreds of test threads launched tools
/// at once.
public func launch(_ process: Process) throws {
    try processLaunches.withLock { try process.run() }
}

private let processLaunches = NSLock()
