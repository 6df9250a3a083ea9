// The Python test server (Server/rest_server.py), started once per test run.
import DataStoreREST
import ModelConformance
import Foundation

/// The running test server: started on first use, shared by every test, and gone when the test
/// process ends (the script exits when its stdin — a pipe this process holds — closes).
struct TestServer: Sendable {
    /// The loopback port the server listens on.
    let port: Int
    /// The write end of the server's stdin, kept open for the life of the test process.
    private let stdin: Pipe

    /// The shared server, or why it could not start.
    static let shared: Result<TestServer, TestServerError> = start()

    /// The running server.
    static func running() throws -> TestServer { try shared.get() }

    /// `http://127.0.0.1:<port>/<path>`.
    func url(_ path: String) -> String { "http://127.0.0.1:\(port)/\(path)" }

    /// A URL for a new, empty collection, unique to the caller, so tests running in parallel
    /// never see each other's objects.
    func freshCollection() -> String { url("c-\(UUID().uuidString.lowercased())") }

    private static func start() -> Result<TestServer, TestServerError> {
        guard let folder = Bundle.module.url(forResource: "Server", withExtension: nil) else {
            return .failure(TestServerError("the Server folder is not in the test bundle"))
        }
        let script = folder.appendingPathComponent("rest_server.py")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script.path, "id"]
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        do {
            try launch(process)
        } catch {
            return .failure(TestServerError("cannot run python3 \(script.path): \(error)"))
        }
        // The first line of output is the port.
        var line = Data()
        let reader = output.fileHandleForReading
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = reader.availableData
            if chunk.isEmpty {
                return .failure(TestServerError("python3 \(script.path) exited before printing its port"))
            }
            line.append(chunk)
        }
        let text = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard let port = Int(text) else {
            return .failure(TestServerError("the test server printed '\(text)' instead of a port"))
        }
        return .success(TestServer(port: port, stdin: input))
    }
}

/// Why the test server could not start.
struct TestServerError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Restify models on the test server.
enum Models {
    /// A client with a timeout short enough that a stuck test fails quickly.
    static let client = URLSessionClient(timeout: .seconds(10))

    /// A Restify model of conformance messages on a new, empty collection.
    static func freshMessages() throws -> Restify<ConformanceMessage> {
        Restify<ConformanceMessage>(path: try TestServer.running().freshCollection(), networkClient: client)
    }
}
