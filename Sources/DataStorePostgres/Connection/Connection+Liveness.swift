internal import CPostgres

#if canImport(Glibc)
import Glibc
#endif

extension Connection {
    /// Whether a connection that has sent nothing since its last answer is still open, found
    /// without waiting: a server that went away while the connection sat idle (a crash, a
    /// restart, an administrator's `pg_terminate_backend`) has closed its socket, which libpq only
    /// notices at the next statement, and a batch sent then would fail after the fact instead of
    /// on a fresh connection. Whatever the server sent meanwhile (a notice, a notification, its
    /// farewell error) is read into libpq.
    ///
    /// The corresponding C functions are `PQsocket` and `PQconsumeInput`.
    func isOpenAfterIdle() -> Bool {
        guard isHealthy, !isInTransaction else { return isHealthy }
        let socket = PQsocket(handle)
        guard socket >= 0 else { return false }
        var byte: UInt8 = 0
        // Twice at most: bytes that arrived first, then whether the end of the stream follows them.
        for _ in 0..<2 {
            let peeked = recv(socket, &byte, 1, Int32(MSG_PEEK) | Int32(MSG_DONTWAIT))
            if peeked == 0 { return false }
            if peeked < 0 { return (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) && isHealthy }
            guard PQconsumeInput(handle) == 1 else { return false }
        }
        return isHealthy
    }
}
