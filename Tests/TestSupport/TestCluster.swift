import Foundation

/// A PostgreSQL cluster of one test's own, which it may stop and restart without disturbing the
/// other tests: initdb in a temporary directory, a server listening only on a Unix socket there.
/// Made with the tools in `DATASTORE_PG_BINDIR` (set by Tests/Postgres/with-cluster.sh).
public final class TestCluster: Sendable {
    public static let bindir = ProcessInfo.processInfo.environment["DATASTORE_PG_BINDIR"]
    /// Whether clusters can be made (the tools are known).
    public static var isAvailable: Bool { bindir != nil }

    public let directory: String
    private var data: String { directory + "/data" }

    /// The connection string of the cluster's server.
    public var url: String { "host=\(directory) port=5432 user=dsk dbname=postgres" }

    /// The server as a `postgresql://` URL (its socket directory percent-encoded as the host).
    public var postgresURL: String {
        let host = directory.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? directory
        return "postgresql://dsk@\(host):5432/postgres?connect_timeout=2"
    }

    public init() throws {
        directory = NSTemporaryDirectory() + "datastore-pg-test-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: directory)
        try run("initdb", ["-D", data, "-U", "dsk", "--auth=trust", "-E", "UTF8", "--no-locale"])
        try start()
    }

    /// Starts the server and waits until it accepts connections.
    public func start() throws {
        try run(
            "pg_ctl",
            [
                "-D", data, "-l", directory + "/server.log", "-w", "-s", "start", "-o",
                "-c listen_addresses= -c port=5432 -c unix_socket_directories=\(directory) -c fsync=off"
            ])
    }

    /// Stops the server as a crash would: no checkpoint, connections cut.
    public func crash() throws { try run("pg_ctl", ["-D", data, "-m", "immediate", "-s", "stop"]) }

    /// Stops every process of the server (SIGSTOP) — the postmaster and its backends — as a
    /// machine that stopped answering would: sockets stay open, nothing answers.
    public func freeze() { signalAll(SIGSTOP) }

    /// Lets the server's processes run again (SIGCONT).
    public func thaw() { signalAll(SIGCONT) }

    /// The postmaster's process id (the first line of `postmaster.pid`) and its children's.
    private var processIDs: [pid_t] {
        guard let text = try? String(contentsOfFile: data + "/postmaster.pid", encoding: .utf8),
            let first = text.split(separator: "\n").first, let postmaster = pid_t(first)
        else { return [] }
        let children = ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).compactMap {
            entry -> pid_t? in
            guard let pid = pid_t(entry),
                let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { return nil }
            // After "pid (name) state": the parent's id.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            return fields.count > 1 && pid_t(fields[1]) == postmaster ? pid : nil
        }
        return [postmaster] + children
    }

    private func signalAll(_ signal: Int32) {
        for pid in processIDs { kill(pid, signal) }
    }

    /// Stops the server, if running, and removes the cluster.
    public func remove() {
        thaw()
        try? run("pg_ctl", ["-D", data, "-m", "fast", "-s", "stop"])
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Runs one of the server's tools, as postgres when we are root (initdb refuses root), from
    /// inside the cluster's directory, and waits for it (posix_spawn and waitpid: Foundation's
    /// `Process.waitUntilExit` can wait forever off the main thread).
    private func run(_ tool: String, _ arguments: [String]) throws {
        let path = (Self.bindir ?? "/usr/bin") + "/" + tool
        let command = (getuid() == 0 ? ["/usr/sbin/runuser", "-u", "postgres", "--", path] : [path]) + arguments
        let script = "cd \"$0\" && exec \"$@\" >/dev/null 2>&1"
        let argv = ["/bin/sh", "-c", script, directory] + command
        var pointers = argv.map { strdup($0) } + [nil]
        defer { for pointer in pointers { free(pointer) } }
        var pid: pid_t = 0
        guard posix_spawn(&pid, "/bin/sh", nil, nil, &pointers, environ) == 0 else {
            throw CocoaError(.executableLoad, userInfo: [NSLocalizedDescriptionKey: "cannot run \(tool)"])
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        guard status == 0 else {
            throw CocoaError(.executableLoad, userInfo: [NSLocalizedDescriptionKey: "\(tool) \(arguments) failed"])
        }
    }
}
