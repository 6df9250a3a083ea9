internal import CPostgres

#if canImport(Glibc)
import Glibc
#endif

/// How long a connection waits for the server: to connect (or reconnect), and for each
/// statement's answer (a pipeline's, for a pipeline). `nil` waits as long as it takes.
package struct ConnectionTimeouts: Sendable, Hashable {
    /// The bound on making the connection, all hosts of a URL included.
    package var connect: Duration?
    /// The bound on sending one statement (or pipeline) and reading its answer.
    package var statement: Duration?

    package init(connect: Duration? = nil, statement: Duration? = nil) {
        self.connect = connect
        self.statement = statement
    }
}

/// Every call that waits for the server goes through these, so that none waits past its bound:
/// libpq's own blocking calls (`PQexec`, `PQconnectdb`, `PQgetResult` while busy) wait as long
/// as a stopped server keeps its socket open. The connection stays in non-blocking mode; a wait
/// is a `poll` of its socket with the time left.
extension Connection {
    /// The instant `duration` from now, or `nil` for no bound.
    static func deadline(after duration: Duration?) -> ContinuousClock.Instant? {
        duration.map { ContinuousClock.now + $0 }
    }

    /// Waits until the socket is readable (or writable, when `writing`); `false` once `deadline`
    /// has passed first.
    func waitForSocket(writing: Bool, until deadline: ContinuousClock.Instant?) throws(PostgresError) -> Bool {
        let socket = PQsocket(handle)
        guard socket >= 0 else { throw lost("the connection has no socket") }
        var descriptor = pollfd(fd: socket, events: Int16(POLLIN) | (writing ? Int16(POLLOUT) : 0), revents: 0)
        while true {
            var milliseconds: Int32 = -1
            if let deadline {
                let (seconds, attoseconds) = ContinuousClock.now.duration(to: deadline).components
                if seconds < 0 || (seconds == 0 && attoseconds <= 0) { return false }
                // Rounded up: a wait never ends before its deadline for want of precision.
                milliseconds = Int32(
                    clamping: seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000)
            }
            let ready = poll(&descriptor, 1, milliseconds)
            if ready > 0 { return true }
            if ready < 0 && errno != EINTR { throw lost("waiting for the server failed (errno \(errno))") }
        }
    }

    /// Sends what libpq holds of the statements sent, reading what the server sends meanwhile
    /// (so that neither side blocks on a full buffer), within `deadline`.
    func flush(until deadline: ContinuousClock.Instant?, _ what: @autoclosure () -> String) throws(PostgresError) {
        while true {
            let flushed = PQflush(handle)
            if flushed == 0 { return }
            if flushed < 0 { throw lost("sending \(what()) failed") }
            guard try waitForSocket(writing: true, until: deadline) else { throw timedOut(sending: what()) }
            guard PQconsumeInput(handle) == 1 else { throw lost("reading while sending \(what()) failed") }
        }
    }

    /// The next result of the statement in flight, or `nil` when it has no more, waiting at most
    /// until `deadline` for the server's answer.
    func nextResult(until deadline: ContinuousClock.Instant?, _ what: @autoclosure () -> String)
        throws(PostgresError) -> OpaquePointer?
    {
        try flush(until: deadline, what())
        while PQisBusy(handle) == 1 {
            guard try waitForSocket(writing: false, until: deadline) else { throw timedOut(waitingFor: what()) }
            guard PQconsumeInput(handle) == 1 else { throw lost("reading the answer to \(what()) failed") }
        }
        return PQgetResult(handle)
    }

    /// Sends a statement with `send` (a `PQsend…` call) and returns its result as `PQexec` does —
    /// the last, which after a failure is the failure (the server runs nothing after it) — within
    /// the statement bound.
    func runStatement(_ what: @autoclosure () -> String, _ send: () -> Int32) throws(PostgresError) -> QueryResult {
        try refuseIfAbandoned()
        guard send() == 1 else { throw lost("sending \(what()) failed") }
        let deadline = Self.deadline(after: timeouts.statement)
        var last: OpaquePointer?
        do throws(PostgresError) {
            while let result = try nextResult(until: deadline, what()) {
                if let last { PQclear(last) }
                last = result
            }
        } catch {
            if let last { PQclear(last) }
            throw error
        }
        return try check(last)
    }

    /// Throws when a wait ran out with a statement in flight: nothing more is sent on the session.
    func refuseIfAbandoned() throws(PostgresError) {
        if abandoned { throw PostgresError(.connectionFailure, "the connection to \(target) was abandoned") }
    }

    /// Drives a connection attempt begun by `PQconnectStartParams` or `PQresetStart` to its end
    /// with `poll` (`PQconnectPoll` or `PQresetPoll`), within the connect bound.
    func establish(_ poll: (OpaquePointer) -> PostgresPollingStatusType) throws(PostgresError) {
        let deadline = Self.deadline(after: timeouts.connect)
        // libpq's documentation: "consider a status of PGRES_POLLING_WRITING" at the start.
        var status = PGRES_POLLING_WRITING
        while true {
            switch status {
            case PGRES_POLLING_OK:
                return
            case PGRES_POLLING_READING, PGRES_POLLING_WRITING:
                guard try waitForSocket(writing: status == PGRES_POLLING_WRITING, until: deadline) else {
                    abandoned = true
                    throw PostgresError(
                        .clientTimeout,
                        "connecting to \(target) took longer than \(Self.shown(timeouts.connect)) "
                            + "(PostgresStore.Options.connectTimeout)")
                }
            default:
                throw connectionRefused()
            }
            status = poll(handle)
        }
    }

    /// The error of a failed connection attempt, with the SQLSTATE the server sent when it sent
    /// one (the connection reports errors verbosely while it connects, which puts the code in the
    /// text: `FATAL:  3D000: database "x" does not exist`), else class 08.
    private func connectionRefused() -> PostgresError {
        // The verbose form's extra line says where in the server's source the error was raised.
        var message = Self.message(handle).split(separator: "\n").filter { !$0.hasPrefix("LOCATION:") }
            .joined(separator: "\n")
        var code = PostgresError.Code.cannotConnect
        for severity in ["FATAL:  ", "ERROR:  "] {
            guard let range = message.range(of: severity) else { continue }
            let state = message[range.upperBound...].prefix(7)
            if state.count == 7, state.hasSuffix(": "),
                state.prefix(5).allSatisfy({ $0.isASCII && ($0.isNumber || $0.isUppercase) })
            {
                code = PostgresError.Code(rawValue: String(state.prefix(5)))
                message.removeSubrange(range.upperBound..<message.index(range.upperBound, offsetBy: 7))
                break
            }
        }
        return PostgresError(code, "cannot connect to \(target): \(message)")
    }

    /// The error for an answer that did not come within the statement bound. The statement is
    /// still in flight, so the connection cannot be used again: it is abandoned (made anew on
    /// next use).
    private func timedOut(waitingFor what: String) -> PostgresError {
        abandoned = true
        return PostgresError(
            .clientTimeout,
            "the server at \(target) did not answer \(what) within \(Self.shown(timeouts.statement)) "
                + "(PostgresStore.Options.statementTimeout)")
    }

    private func timedOut(sending what: String) -> PostgresError {
        abandoned = true
        return PostgresError(
            .clientTimeout,
            "the server at \(target) did not take \(what) within \(Self.shown(timeouts.statement)) "
                + "(PostgresStore.Options.statementTimeout)")
    }

    /// A bound as a user reads it.
    static func shown(_ duration: Duration?) -> String {
        guard let duration else { return "no bound" }
        let (seconds, attoseconds) = duration.components
        let milliseconds = seconds * 1000 + attoseconds / 1_000_000_000_000_000
        return milliseconds % 1000 == 0 ? "\(milliseconds / 1000) s" : "\(milliseconds) ms"
    }
}
