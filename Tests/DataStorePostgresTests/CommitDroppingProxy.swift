import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A TCP proxy in front of the test server that cuts a connection at the moment a commit's answer
/// is lost: the connection that sends a `COMMIT` statement (a Parse message holding `COMMIT\0`,
/// as the writer's pipeline sends it) is closed, on both sides, either after the server has it —
/// the server commits and the answer never arrives — or before. Connections it is not armed for
/// are relayed as they are.
final class CommitDroppingProxy: Sendable {
    /// What the proxy does with the next `COMMIT` it sees.
    enum Mode: Sendable {
        /// Relay everything.
        case relay
        /// Forward the `COMMIT` to the server, then close before its answer comes back.
        case dropAnswer
        /// As ``dropAnswer``, and refuse every connection from then on (``refuse(_:)``).
        case dropAnswerAndRefuse
        /// Close without forwarding the `COMMIT`: the server rolls the transaction back.
        case dropCommit
    }

    private struct State {
        var mode = Mode.relay
        var drops = 0
        /// Whether new connections are refused (closed at once).
        var refusing = false
    }

    private let listener: Int32
    /// The port it listens on, on 127.0.0.1.
    let port: UInt16
    private let target: (host: String, port: UInt16)

    /// A proxy for the test server the `PG*` variables name (`PGHOST` an IPv4 address).
    convenience init() throws {
        let environment = ProcessInfo.processInfo.environment
        try self.init(
            host: environment["PGHOST"] ?? "127.0.0.1", serverPort: UInt16(environment["PGPORT"] ?? "") ?? 5432)
    }
    private let state = Mutex(State())

    /// A proxy for the server at `host`:`serverPort`.
    init(host: String, serverPort: UInt16) throws {
        target = (host, serverPort)
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.listener = listener
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(listener, pointer, length) == 0 && listen(listener, 64) == 0
                    && getsockname(listener, pointer, &length) == 0
            }
        }
        guard bound else { throw POSIXError(.EADDRINUSE) }
        port = UInt16(bigEndian: address.sin_port)
        let thread = Thread { [self] in accept() }
        thread.start()
    }

    /// A connection string to the server through the proxy.
    var url: String {
        let environment = ProcessInfo.processInfo.environment
        return
            "host=127.0.0.1 port=\(port) user=\(environment["PGUSER"] ?? "dsk") dbname=\(environment["PGDATABASE"] ?? "postgres")"
    }

    /// Arms the proxy for the next `COMMIT`.
    func arm(_ mode: Mode) { state.withLock { $0.mode = mode } }

    /// Refuses (closes at once) every connection made from now on, or accepts them again.
    func refuse(_ refusing: Bool) { state.withLock { $0.refusing = refusing } }

    /// How many connections it has cut at a `COMMIT`.
    var drops: Int { state.withLock { $0.drops } }

    private func accept() {
        while true {
            let client = Glibc.accept(listener, nil, nil)
            if client < 0 { if errno == EINTR { continue } else { return } }
            if state.withLock({ $0.refusing }) {
                close(client)
                continue
            }
            guard let server = connectToTarget() else {
                close(client)
                continue
            }
            let connection = Relay(client: client, server: server)
            let upstream = Thread { [self] in relayUpstream(connection) }
            let downstream = Thread { connection.relayDownstream() }
            upstream.start()
            downstream.start()
        }
    }

    private func connectToTarget() -> Int32? {
        let server = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr(target.host)
        address.sin_port = target.port.bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(server, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
        if connected { return server }
        close(server)
        return nil
    }

    /// Client to server: forwards each chunk, watching for a `COMMIT` when armed.
    private func relayUpstream(_ relay: Relay) {
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        let commit = Array("COMMIT\0".utf8)
        while true {
            let count = recv(relay.client, &buffer, buffer.count, 0)
            if count <= 0 { return relay.cut() }
            let chunk = Array(buffer[..<count])
            let mode = state.withLock { $0.mode }
            if mode != .relay, Self.contains(chunk, commit) {
                state.withLock {
                    $0.mode = .relay
                    $0.drops += 1
                }
                if mode == .dropAnswerAndRefuse { refuse(true) }
                if mode == .dropAnswer || mode == .dropAnswerAndRefuse {
                    relay.dropAnswers()
                    _ = relay.send(chunk, to: relay.server)
                    // The server answers once it has committed; give it the moment, then cut.
                    Thread.sleep(forTimeInterval: 0.2)
                }
                return relay.cut()
            }
            if !relay.send(chunk, to: relay.server) { return relay.cut() }
        }
    }

    private static func contains(_ bytes: [UInt8], _ pattern: [UInt8]) -> Bool {
        guard bytes.count >= pattern.count else { return false }
        for start in 0...(bytes.count - pattern.count) where bytes[start] == pattern[0] {
            if Array(bytes[start..<(start + pattern.count)]) == pattern { return true }
        }
        return false
    }
}

/// One relayed connection: the client's socket and the server's.
private final class Relay: Sendable {
    let client: Int32
    let server: Int32
    private let flags = Mutex((cut: false, droppingAnswers: false, threadsDone: 0))

    init(client: Int32, server: Int32) {
        self.client = client
        self.server = server
    }

    /// From here on, nothing the server sends reaches the client.
    func dropAnswers() { flags.withLock { $0.droppingAnswers = true } }

    /// Ends the relay: shuts both sides down (which wakes the other thread), and closes the
    /// sockets once both threads are done with them, so that no number is reused under a reader.
    func cut() {
        shutdown(client, Int32(SHUT_RDWR))
        shutdown(server, Int32(SHUT_RDWR))
        let last = flags.withLock { flags -> Bool in
            flags.threadsDone += 1
            return flags.threadsDone == 2
        }
        guard last else { return }
        close(client)
        close(server)
    }

    /// Server to client.
    func relayDownstream() {
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = recv(server, &buffer, buffer.count, 0)
            if count <= 0 { return cut() }
            if flags.withLock({ $0.droppingAnswers }) { continue }
            if !send(Array(buffer[..<count]), to: client) { return cut() }
        }
    }

    func send(_ bytes: [UInt8], to socket: Int32) -> Bool {
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes {
                Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            if count <= 0 { return false }
            sent += count
        }
        return true
    }
}
