internal import CPostgres

extension Connection {
    /// Runs one statement as ``execute(_:_:)`` does, as a named prepared statement of this
    /// session: prepared on first use, then only bound and run, so the server neither parses nor
    /// plans it again. Parameters are bound, never spliced into `sql`.
    ///
    /// The corresponding C functions are `PQsendPrepare` and `PQsendQueryPrepared`.
    /// - Throws: ``PostgresError`` with the server's SQLSTATE, or of class 08 when the
    ///   connection is lost.
    @discardableResult
    package func executePrepared(_ sql: String, _ parameters: [SQLParameter] = []) throws(PostgresError)
        -> QueryResult
    {
        try executePrepared(SQLText(sql), parameters)
    }

    /// ``executePrepared(_:_:)-(String,_)`` for a text whose hash is worked out already.
    /// - Throws: As the form that takes a `String`.
    @discardableResult
    package func executePrepared(_ sql: SQLText, _ parameters: [SQLParameter] = []) throws(PostgresError)
        -> QueryResult
    {
        let name = try preparedName(sql, parameterCount: parameters.count)
        do throws(PostgresError) { return try runPrepared(name, parameters) } catch {
            guard Self.isStale(error) else { throw error }
            statements.forget(sql)
            // Inside a transaction the failure has aborted it: the caller retries the whole of it.
            if isInTransaction { throw error }
            // The session lost the statement, or a table changed under its plan: prepare it afresh.
            return try runPrepared(try preparedName(sql, parameterCount: parameters.count), parameters)
        }
    }

    /// How many statements this session has prepared, for tests.
    package var preparedStatementCount: Int { statements.count }

    /// The name `sql` is prepared under, preparing it (one round trip) when it is not yet.
    private func preparedName(_ sql: SQLText, parameterCount: Int) throws(PostgresError) -> String {
        if let name = statements.name(of: sql) { return name }
        let (name, evicted) = statements.reserve()
        if let evicted {
            do throws(PostgresError) {
                _ = try runStatement("DEALLOCATE") { PQsendQuery(handle, "DEALLOCATE \(evicted)") }
            } catch {
                // A statement the session no longer has needs no deallocating.
                if error.isUnavailable { throw error }
            }
        }
        _ = try runStatement("a PREPARE") { PQsendPrepare(handle, name, sql.text, Int32(parameterCount), nil) }
        statements.insert(sql, name: name)
        return name
    }

    private func runPrepared(_ name: String, _ parameters: [SQLParameter]) throws(PostgresError) -> QueryResult {
        try runStatement("a prepared statement") {
            Self.withParameters(parameters) { count, values, lengths, formats in
                PQsendQueryPrepared(handle, name, count, values, lengths, formats, 1)
            }
        }
    }
}
