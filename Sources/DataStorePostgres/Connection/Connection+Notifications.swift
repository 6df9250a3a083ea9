internal import CPostgres
import Foundation

extension Connection {
    /// Waits up to `timeout` for the server to send something (a notification), then reads what
    /// arrived and returns the payloads of the notifications among it, oldest first.
    ///
    /// The corresponding C functions are `PQsocket`, `PQconsumeInput` and `PQnotifies`.
    /// - Throws: ``PostgresError`` of class 08 when the connection is lost.
    package func notifications(waitingUpTo timeout: Duration) throws(PostgresError) -> [String] {
        let socket = PQsocket(handle)
        guard socket >= 0 else { throw PostgresError(.connectionFailure, "the listening connection has no socket") }
        var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
        let milliseconds = Int32(
            timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)
        _ = poll(&descriptor, 1, milliseconds)
        guard PQconsumeInput(handle) == 1 else {
            throw PostgresError(.connectionFailure, "the listening connection was lost")
        }
        var payloads: [String] = []
        while let notification = PQnotifies(handle) {
            payloads.append(String(cString: notification.pointee.extra))
            PQfreemem(notification)
        }
        return payloads
    }
}
