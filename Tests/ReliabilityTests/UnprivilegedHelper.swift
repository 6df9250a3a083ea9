import Foundation
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// The crash helper run as the unprivileged user `nobody` (through `runuser`), for tests whose
/// point is a permission that root would ignore.
struct UnprivilegedHelper {
    /// The user the helper runs as.
    static let user = "nobody"
    static let runuser = "/usr/sbin/runuser"

    /// What a finished run printed (standard output and error together) and its exit status.
    struct Outcome {
        var output: String
        var status: Int32
    }

    /// The uid of ``user``, when this process may switch to it: it runs as root, `runuser` exists
    /// and a child started through it really runs as that uid; otherwise the reason it cannot.
    static func availableUID() -> Result<uid_t, Unavailable> {
        guard geteuid() == 0 else { return .failure(Unavailable(reason: "not running as root")) }
        guard let entry = getpwnam(user) else { return .failure(Unavailable(reason: "no user \(user)")) }
        let uid = entry.pointee.pw_uid
        guard FileManager.default.isExecutableFile(atPath: runuser) else {
            return .failure(Unavailable(reason: "\(runuser) is missing"))
        }
        guard let probe = try? run(executable: runuser, ["-u", user, "--", "/usr/bin/id", "-u"]),
            probe.status == 0, probe.output.trimmingCharacters(in: .whitespacesAndNewlines) == "\(uid)"
        else {
            return .failure(Unavailable(reason: "runuser -u \(user) did not start a process as uid \(uid)"))
        }
        return .success(uid)
    }

    struct Unavailable: Error, CustomStringConvertible {
        var reason: String
        var description: String { "cannot run a child as \(UnprivilegedHelper.user): \(reason)" }
    }

    /// Runs `DataStoreCrashHelper arguments…` as ``user`` and waits for it.
    static func helper(_ arguments: [String]) throws -> Outcome {
        try run(executable: runuser, ["-u", user, "--", ChildProcess.helperURL().path] + arguments)
    }

    private static func run(executable: String, _ arguments: [String]) throws -> Outcome {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try launch(process)
        // The helper prints a few lines; reading to the end before waiting cannot fill the pipe.
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Outcome(output: String(decoding: data, as: UTF8.self), status: process.terminationStatus)
    }
}
