import Foundation

/// A PostgreSQL cluster of one test's own, which it may stop and restart without disturbing the
/// other tests: initdb in a temporary directory, a server listening only on a Unix socket there.
/// Made with the tools in `DATASTORE_PG_BINDIR` (set by Tests/Postgres/with-cluster.sh).
final class TestCluster: Sendable {
    static let bindir = ProcessInfo.processInfo.environment["DATASTORE_PG_BINDIR"]
    /// Whether clusters can be made (the tools are known).
    static var isAvailable: Bool { bindir != nil }

    let directory: String
    private var data: String { directory + "/data" }

    /// The connection string of the cluster's server.
    var url: String { "host=\(directory) port=5432 user=dsk dbname=postgres connect_timeout=5" }

    init() throws {
        directory = NSTemporaryDirectory() + "datastore-pg-test-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: directory)
        try run("initdb", ["-D", data, "-U", "dsk", "--auth=trust", "-E", "UTF8", "--no-locale"])
        try start()
    }

    /// Starts the server and waits until it accepts connections.
    func start() throws {
        try run(
            "pg_ctl",
            [
                "-D", data, "-l", directory + "/server.log", "-w", "-s", "start", "-o",
                "-c listen_addresses= -c port=5432 -c unix_socket_directories=\(directory) -c fsync=off"
            ])
    }

    /// Stops the server as a crash would: no checkpoint, connections cut.
    func crash() throws { try run("pg_ctl", ["-D", data, "-m", "immediate", "-s", "stop"]) }

    /// Stops the server, if running, and removes the cluster.
    func remove() {
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
