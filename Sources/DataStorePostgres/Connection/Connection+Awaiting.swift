internal import CPostgres

extension Connection {
    /// Runs the statement prepared as `name` with `parameters` bound, as
    /// ``executePrepared(_:_:)`` does, without holding a thread while the server answers beyond
    /// `window`: the statement is sent from the caller's thread without blocking; the caller
    /// reads the answer itself when it comes within `window` (and `gate` has room: no more than
    /// ``CallerWaits/limit`` reads of the process wait so), otherwise the process's event thread
    /// reads it and resumes the caller.
    ///
    /// The corresponding C functions are `PQsendQueryPrepared`, `PQflush`, `PQconsumeInput`,
    /// `PQisBusy` and `PQgetResult`.
    /// - Throws: ``PostgresError`` with the server's SQLSTATE, or of class 08 when the
    ///   connection is lost.
    func executePreparedAwaiting(
        _ name: String, _ parameters: [SQLParameter], pollingFor window: Duration = .zero,
        gate: CallerWaits = .shared
    ) async throws(PostgresError) -> QueryResult {
        switch try executePreparedHere(name, parameters, pollingFor: window, gate: gate) {
        case .answered(let result): return result
        case .handedOver(let flushing, let first): return try await awaitAnswer(flushing: flushing, first: first)
        }
    }

    /// How far ``executePreparedHere(_:_:pollingFor:gate:)`` got on the caller's thread.
    enum HereAnswer {
        /// The statement's answer.
        case answered(QueryResult)
        /// The answer is still to come: ``awaitAnswer(flushing:first:)`` waits for it (the
        /// connection stays non-blocking until then).
        case handedOver(flushing: Bool, first: Handoff<OpaquePointer>?)
    }

    /// The part of ``executePreparedAwaiting(_:_:pollingFor:gate:)`` on the caller's thread, with
    /// no suspension point: a read answered within `window`, the common case, then costs no
    /// asynchronous frame of its own.
    func executePreparedHere(
        _ name: String, _ parameters: [SQLParameter], pollingFor window: Duration = .zero,
        gate: CallerWaits = .shared
    ) throws(PostgresError) -> HereAnswer {
        // The connection is non-blocking (``Connection/open(_:)``): sending never waits.
        let sent = Self.withParameters(parameters) { count, values, lengths, formats in
            PQsendQueryPrepared(handle, name, count, values, lengths, formats, 1)
        }
        guard sent == 1 else { throw lost("the statement was not sent") }
        let flushed = PQflush(handle)
        guard flushed >= 0 else { throw lost("the statement was not sent") }
        var first: Handoff<OpaquePointer>?
        if flushed == 0, window > .zero, gate.enter() {
            let outcome = readHere(within: window)
            gate.leave()
            switch outcome {
            case .finished(let result):
                gate.answered.add(1, ordering: .relaxed)
                return .answered(try check(result))
            case .pending(let partial):
                gate.handedOver.add(1, ordering: .relaxed)
                first = partial.map(Handoff.init)
            }
        }
        return .handedOver(flushing: flushed == 1, first: first)
    }

    /// Waits on the process's event thread for the answer ``executePreparedHere(_:_:pollingFor:gate:)``
    /// handed over, at most the statement bound.
    func awaitAnswer(flushing: Bool, first: Handoff<OpaquePointer>?) async throws(PostgresError) -> QueryResult {
        let deadline = Self.deadline(after: timeouts.statement)
        switch await ReadEvents.shared.result(of: self, flushing: flushing, first: first, until: deadline) {
        case .answered(let result): return try check(result)
        case .timedOut:
            abandoned = true
            throw PostgresError(
                .clientTimeout,
                "the server at \(target) did not answer a read within \(Self.shown(timeouts.statement)) "
                    + "(PostgresStore.Options.statementTimeout)")
        }
    }

    /// How far ``readHere(within:)`` got.
    private enum HereOutcome {
        /// The statement is done: its first result, or `nil` when the connection was lost.
        case finished(OpaquePointer?)
        /// Time ran out: the first result if it is complete, the rest still to read.
        case pending(OpaquePointer?)
    }

    /// Reads the statement's results on this thread as they arrive, until the statement is done
    /// or `window` has passed; later results than the first are freed.
    private func readHere(within window: Duration) -> HereOutcome {
        let deadline = ContinuousClock.now + window
        let socket = PQsocket(handle)
        if socketWait == nil { socketWait = SocketWait() }
        guard socket >= 0, let wait = socketWait else { return .pending(nil) }
        var first: OpaquePointer?
        while true {
            let (seconds, attoseconds) = ContinuousClock.now.duration(to: deadline).components
            guard wait.readable(socket, within: seconds * 1_000_000_000 + attoseconds / 1_000_000_000) else {
                return .pending(first)
            }
            guard PQconsumeInput(handle) == 1 else {
                if let first { PQclear(first) }
                return .finished(nil)
            }
            // PQgetResult blocks only while libpq is busy: each call here returns at once.
            while PQisBusy(handle) == 0 {
                guard let result = PQgetResult(handle) else { return .finished(first) }
                if first == nil { first = result } else { PQclear(result) }
            }
        }
    }

    /// Whether `error` means the prepared statement itself is unusable rather than the query
    /// wrong: the session lost it, or a table changed under its plan.
    static func isStale(_ error: PostgresError) -> Bool {
        error.code == .invalidStatementName || error.code == .featureNotSupported
    }
}
