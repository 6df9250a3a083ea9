internal import CPostgres

extension Connection {
    /// Runs the statement prepared as `name` with `parameters` bound, as
    /// ``executePrepared(_:_:)`` does, without holding a thread while the server answers: the
    /// statement is sent from the caller's thread without blocking, and the process's event
    /// thread reads the result and resumes the caller.
    ///
    /// The corresponding C functions are `PQsendQueryPrepared`, `PQflush`, `PQconsumeInput`,
    /// `PQisBusy` and `PQgetResult`.
    /// - Throws: ``PostgresError`` with the server's SQLSTATE, or of class 08 when the
    ///   connection is lost.
    func executePreparedAwaiting(_ name: String, _ parameters: [SQLParameter]) async throws(PostgresError)
        -> QueryResult
    {
        // Non-blocking only while this statement is out: the connection's other callers block as before.
        guard PQsetnonblocking(handle, 1) == 0 else { throw lost("cannot send without blocking") }
        defer { PQsetnonblocking(handle, 0) }
        let sent = Self.withParameters(parameters) { count, values, lengths, formats in
            PQsendQueryPrepared(handle, name, count, values, lengths, formats, 1)
        }
        guard sent == 1 else { throw lost("the statement was not sent") }
        let flushed = PQflush(handle)
        guard flushed >= 0 else { throw lost("the statement was not sent") }
        return try check(await ReadEvents.shared.result(of: self, flushing: flushed == 1))
    }

    /// Whether `error` means the prepared statement itself is unusable rather than the query
    /// wrong: the session lost it, or a table changed under its plan.
    static func isStale(_ error: PostgresError) -> Bool {
        error.code == .invalidStatementName || error.code == .featureNotSupported
    }
}
