import DataStoreCore

/// The writer's connection lent to one `write { }` closure inside a batch's transaction: each
/// write runs at once (one round trip), so the closure's reads see it; what it wrote is kept for
/// the change feed. The collection's schema lock is taken the first time the closure touches it.
final class WriterSession {
    let connection: Connection
    private let clock: CommitClock
    private let lock: (TableLayout) throws -> Void
    /// The writes made, with what each found: the batch's change-feed rows.
    private(set) var writes: [RowStatements] = []
    private(set) var outcomes: [RowOutcome] = []

    init(connection: Connection, clock: CommitClock, lock: @escaping (TableLayout) throws -> Void) {
        self.connection = connection
        self.clock = clock
        self.lock = lock
    }

    /// Runs `body` on the connection once `layout`'s collection is locked for this batch.
    func read<R>(_ layout: TableLayout, _ body: (Connection) throws -> R) throws -> R {
        try lock(layout)
        return try body(connection)
    }

    /// Carries out `operation` now, and returns what it found.
    /// - Throws: The store's error for it; a `PostgresError` as is when the connection went away
    ///   or the server asks for the transaction to be run again (the writer's to handle).
    @discardableResult
    func run(_ operation: RowOperation) throws -> RowOutcome {
        try lock(operation.layout)
        let row = try RowStatements(operation, clock: clock)
        let answered = try connection.pipeline(row.statements)
        for outcome in answered {
            switch outcome {
            case .failed(let error):
                if error.isUnavailable || error.isRetryable { throw error }
                throw row.named(error) ?? DataStoreError.postgres(error, "writing \(operation.layout.name)")
            case .skipped:
                throw PostgresError(.connectionFailure, "a write of \(operation.layout.name) was not answered")
            case .done: continue
            }
        }
        guard case .done(let result) = answered[0] else {
            throw PostgresError(.connectionFailure, "a write of \(operation.layout.name) was not answered")
        }
        if let failure = row.check(result) { throw failure }
        let outcome = row.outcome(result)
        writes.append(row)
        outcomes.append(outcome)
        return outcome
    }
}
