internal import CPostgres

extension Connection {
    /// Runs `statements` in libpq's pipeline mode: all are sent, then one sync, so the batch
    /// costs one round trip. After a failure the server skips the rest up to the sync; each
    /// skipped statement's outcome is ``PipelineOutcome/skipped``. A statement with parameters
    /// runs as a prepared statement of this session, prepared within the same round trip the
    /// first time (unless the session's cache is full, when it goes unprepared).
    ///
    /// The corresponding C functions are `PQenterPipelineMode`, `PQsendPrepare`,
    /// `PQsendQueryPrepared`, `PQsendQueryParams`, `PQpipelineSync` and `PQgetResult`.
    /// The whole pipeline waits at most the statement bound (``ConnectionTimeouts/statement``).
    /// - Throws: ``PostgresError`` of class 08 when the connection is lost or the answers do not
    ///   come in time.
    package func pipeline(_ statements: [(sql: String, parameters: [SQLParameter])]) throws(PostgresError)
        -> [PipelineOutcome]
    {
        try refuseIfAbandoned()
        guard PQenterPipelineMode(handle) == 1 else { throw lost("cannot enter pipeline mode") }
        defer { _ = PQexitPipelineMode(handle) }
        var preparing: [String?] = []
        preparing.reserveCapacity(statements.count)
        var named: [String: String] = [:]
        for statement in statements { preparing.append(try send(statement, named: &named)) }
        guard PQpipelineSync(handle) == 1 else { throw lost("sending the pipeline sync failed") }
        let deadline = Self.deadline(after: timeouts.statement)
        var outcomes: [PipelineOutcome] = []
        outcomes.reserveCapacity(statements.count)
        for (statement, preparedAs) in zip(statements, preparing) {
            var prepareFailure: PostgresError?
            if let name = preparedAs {
                switch try nextOutcome(until: deadline) {
                case .done: self.statements.insert(SQLText(statement.sql), name: name)
                case .failed(let error): prepareFailure = error
                case .skipped: break
                }
            }
            let outcome = try nextOutcome(until: deadline)
            // A statement that could not be prepared fails with the reason, not as skipped.
            outcomes.append(prepareFailure.map { .failed($0) } ?? outcome)
        }
        guard let sync = try nextResult(until: deadline, "a pipeline"), PQresultStatus(sync) == PGRES_PIPELINE_SYNC
        else {
            throw lost("the pipeline sync was not answered")
        }
        PQclear(sync)
        return outcomes
    }

    /// Sends one statement of a pipeline; returns the name it is being prepared under when this
    /// pipeline prepares it. `named` holds the statements this pipeline prepares, by SQL text.
    private func send(_ statement: (sql: String, parameters: [SQLParameter]), named: inout [String: String])
        throws(PostgresError) -> String?
    {
        var name =
            named[statement.sql] ?? (statement.parameters.isEmpty ? nil : statements.name(of: SQLText(statement.sql)))
        var fresh: String?
        // A full cache would need a DEALLOCATE, whose failure would abort the pipeline: send it unprepared.
        if name == nil, !statement.parameters.isEmpty, statements.count + named.count < statements.capacity {
            let reserved = statements.reserve().name
            guard PQsendPrepare(handle, reserved, statement.sql, Int32(statement.parameters.count), nil) == 1 else {
                throw lost("sending a statement failed")
            }
            named[statement.sql] = reserved
            (name, fresh) = (reserved, reserved)
        }
        let sent = Self.withParameters(statement.parameters) { count, values, lengths, formats in
            if let name { return PQsendQueryPrepared(handle, name, count, values, lengths, formats, 1) }
            return PQsendQueryParams(handle, statement.sql, count, nil, values, lengths, formats, 1)
        }
        guard sent == 1 else { throw lost("sending a statement failed") }
        return fresh
    }

    /// The outcome of the next statement in a pipeline (each statement's results end with a NULL).
    private func nextOutcome(until deadline: ContinuousClock.Instant?) throws(PostgresError) -> PipelineOutcome {
        guard let result = try nextResult(until: deadline, "a pipeline") else {
            throw lost("the pipeline ended early")
        }
        do throws(PostgresError) {
            while let extra = try nextResult(until: deadline, "a pipeline") { PQclear(extra) }
        } catch {
            PQclear(result)
            throw error
        }
        if PQresultStatus(result) == PGRES_PIPELINE_ABORTED {
            PQclear(result)
            return .skipped
        }
        do throws(PostgresError) { return .done(try check(result)) } catch {
            if error.isUnavailable { throw error }
            return .failed(error)
        }
    }
}
