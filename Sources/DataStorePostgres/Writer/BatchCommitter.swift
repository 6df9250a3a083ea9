import DataStoreCore
import Foundation

/// Commits batches of change sets on the writer's connection (``PostgresWriter``): used only by
/// the writer thread, which is why it may hold the connection without a lock.
final class BatchCommitter: @unchecked Sendable {
    private let connection: Connection
    private let limits: PostgresWriter.Limits
    /// The SQL of the server's transaction ids.
    private let clock: CommitClock
    /// The change feed's statements of each batch (`nil`: the feed is off).
    private var outbox: OutboxRecorder?
    /// Told each commit's identity once it is committed (the change feed's wake-up).
    private let committed: @Sendable (Int64) -> Void
    /// The server reported that it is going away (57P01–57P03): libpq may still call the
    /// connection good until it next reads from it, so it is made again before the next batch.
    private var mustReconnect = false
    /// Whether the server has shared advisory locks; an engine without them has batches compare
    /// the index lists alone, which misses a declaration committing while a batch runs.
    private var hasSchemaLock = true
    /// Whether the server can tell a transaction's status (``CommitClock/status``), so that a
    /// commit whose answer was lost is learned rather than reported unknown.
    private let canLearnOutcomes: Bool
    /// The collections whose schema lock the batch being committed holds.
    private var lockedCollections = Set<ObjectIdentifier>()

    init(
        connection: Connection, limits: PostgresWriter.Limits, clock: CommitClock, feed: FeedSettings?,
        canLearnOutcomes: Bool = true, committed: @escaping @Sendable (Int64) -> Void
    ) {
        self.connection = connection
        self.limits = limits
        self.clock = clock
        self.canLearnOutcomes = canLearnOutcomes
        self.outbox = feed.map { OutboxRecorder(settings: $0, clock: clock) }
        self.committed = committed
    }

    typealias Completion = @Sendable (Result<(outcomes: [RowOutcome], commit: Int64), any Error>) -> Void

    /// One change set of the batch being committed.
    private struct Entry {
        var statements: [RowStatements]
        var complete: Completion
        /// A `write { }` closure's, run under its savepoint after the batch's change sets.
        var body: (@Sendable (WriterSession) throws -> Void)?
        var failure: (any Error)?
        var outcomes: [RowOutcome] = []
        var attempts = 0
    }

    /// Runs an exclusive job, reconnecting first when the server went away meanwhile (also while
    /// the connection sat idle).
    func runExclusive(_ body: (Connection) -> Void) {
        if mustReconnect || !connection.isOpenAfterIdle() { mustReconnect = (try? connection.reconnect()) == nil }
        body(connection)
    }

    /// Runs `body` in a transaction of its own, then records the changes it reports in the
    /// outbox and commits, as a batch does; returns the commit's identity.
    func runRecorded(_ body: (Connection) throws -> [CollectionChanges]) -> Result<Int64, any Error> {
        do {
            if mustReconnect || !connection.isOpenAfterIdle() {
                try connection.reconnect()
                mustReconnect = false
            }
            let begun = try connection.pipeline([("BEGIN", []), ("SELECT \(clock.transactionID)", [])])
            guard case .done(let result) = begun[1], let id = result.int(0, 0) else {
                throw PostgresError(.connectionFailure, "the transaction id was not answered")
            }
            let changes = try body(connection).filter { !($0.inserted + $0.updated + $0.removed).isEmpty }
            let statements = (outbox?.statements(for: changes, time: Date()) ?? []) + [("COMMIT", [])]
            let answered: [PipelineOutcome]
            do throws(PostgresError) { answered = try connection.pipeline(statements) } catch {
                guard error.isUnavailable else { throw error }
                throw CommitInDoubt(transaction: id, error: error)
            }
            for outcome in answered { if case .failed(let error) = outcome { throw error } }
            guard case .done = answered[answered.count - 1] else {
                throw CommitInDoubt(
                    transaction: id, error: PostgresError(.connectionFailure, "the commit was not answered"))
            }
            outbox?.committed(answered[...])
            committed(id)
            return .success(id)
        } catch let doubt as CommitInDoubt {
            mustReconnect = true
            outbox?.forgetAnswers()
            switch learnOutcome(of: doubt.transaction) {
            case .committed:
                committed(doubt.transaction)
                return .success(doubt.transaction)
            case .rolledBack:
                return .failure(
                    DataStoreError(
                        .network,
                        "the connection to PostgreSQL was lost while committing; the server rolled the commit back, "
                            + "so nothing of it was written", underlying: doubt.error))
            case .unknown(let reason):
                return .failure(
                    DataStoreError(
                        .outcomeUnknown,
                        "the connection to PostgreSQL was lost after the commit of transaction \(doubt.transaction) "
                            + "was sent, and \(reason): it may or may not have been written. Check once the server "
                            + "answers: SELECT pg_xact_status('\(doubt.transaction)') says committed or aborted",
                        underlying: doubt.error))
            }
        } catch {
            if (error as? PostgresError)?.isUnavailable == true { mustReconnect = true }
            if connection.isInTransaction { _ = try? connection.execute("ROLLBACK") }
            return .failure(Self.storeError(error, "committing"))
        }
    }

    /// Commits `jobs` (all change sets) as one transaction and answers every caller; returns
    /// how many committed.
    func commit(_ jobs: [WriterJob]) -> Int {
        var entries: [Entry] = []
        for job in jobs {
            if case .transaction(let body, _, let complete) = job {
                entries.append(Entry(statements: [], complete: complete, body: body))
                continue
            }
            guard case .changeSet(let operations, _, let complete) = job else { continue }
            do {
                let statements = try operations.map { operation throws(DataStoreError) in
                    try RowStatements(operation, clock: clock)
                }
                entries.append(Entry(statements: statements, complete: complete))
            } catch {
                complete(.failure(error))
            }
        }
        guard !entries.isEmpty else { return 0 }
        do {
            let commit = try applyRetrying(&entries)
            return answer(entries, committedAs: commit)
        } catch let doubt as CommitInDoubt {
            // The COMMIT was sent and its answer lost: learn what the server did, never guess.
            mustReconnect = true
            outbox?.forgetAnswers()
            switch learnOutcome(of: doubt.transaction) {
            case .committed:
                return answer(entries, committedAs: doubt.transaction)
            case .rolledBack:
                let failure = DataStoreError(
                    .network,
                    "the connection to PostgreSQL was lost while committing; the server rolled the commit back, "
                        + "so nothing of it was written", underlying: doubt.error)
                for entry in entries { entry.complete(.failure(entry.failure ?? failure)) }
                return 0
            case .unknown(let reason):
                let failure = DataStoreError(
                    .outcomeUnknown,
                    "the connection to PostgreSQL was lost after the commit of transaction \(doubt.transaction) was "
                        + "sent, and \(reason): it may or may not have been written. Check once the server answers: "
                        + "SELECT pg_xact_status('\(doubt.transaction)') says committed or aborted; or read a "
                        + "written document's version (\(doubt.transaction) if the commit landed)",
                    underlying: doubt.error)
                for entry in entries { entry.complete(.failure(entry.failure ?? failure)) }
                return 0
            }
        } catch {
            if (error as? PostgresError)?.isUnavailable == true { mustReconnect = true }
            if connection.isInTransaction { _ = try? connection.execute("ROLLBACK") }
            let failure = Self.storeError(error, "committing a batch")
            for entry in entries { entry.complete(.failure(entry.failure ?? failure)) }
            return 0
        }
    }

    /// Answers every caller of a committed batch: its failure (rolled back to its savepoint), or
    /// success with `commit`; returns how many committed.
    private func answer(_ entries: [Entry], committedAs commit: Int64) -> Int {
        committed(commit)
        var count = 0
        for entry in entries {
            if let failure = entry.failure {
                entry.complete(.failure(failure))
            } else {
                count += 1
                entry.complete(.success((entry.outcomes, commit)))
            }
        }
        return count
    }

    /// ``apply(_:)``, again from the start when the commit itself meets a serialization failure
    /// or deadlock (a server that checks serializability at commit), with the change sets'
    /// back-off.
    private func applyRetrying(_ entries: inout [Entry]) throws -> Int64 {
        var attempt = 0
        while true {
            do { return try apply(&entries) } catch let error as PostgresError where error.isRetryable {
                attempt += 1
                guard attempt < limits.maxAttempts else { throw error }
                if connection.isInTransaction { _ = try? connection.execute("ROLLBACK") }
                for position in entries.indices { entries[position].outcomes = [] }
                Thread.sleep(forTimeInterval: backoff(attempt))
            }
        }
    }

    /// Applies the change sets in one transaction, each under its own savepoint, and commits.
    /// - Returns: the commit identity (the server's transaction id).
    /// - Throws: ``CommitInDoubt`` when the connection failed once the commit was sent.
    private func apply(_ entries: inout [Entry]) throws -> Int64 {
        if mustReconnect || !connection.isOpenAfterIdle() {
            try connection.reconnect()
            mustReconnect = false
        }
        let transaction = try beginUnderSchemaLock(&entries)
        var next = 0
        while next < entries.count {
            var statements: [(sql: String, parameters: [SQLParameter])] = []
            var owners: [(entry: Int, operation: Int?)] = []
            for position in next..<entries.count where entries[position].failure == nil && entries[position].body == nil
            {
                statements.append(("SAVEPOINT s\(position)", []))
                owners.append((position, nil))
                for (operation, row) in entries[position].statements.enumerated() {
                    for statement in row.statements {
                        statements.append(statement)
                        owners.append((position, operation))
                    }
                }
            }
            if statements.isEmpty { break }
            let outcomes = try connection.pipeline(statements)
            guard let failed = record(outcomes, owners: owners, into: &entries) else { break }
            try connection.execute("ROLLBACK TO SAVEPOINT s\(failed)")
            next = failed
            if entries[failed].failure != nil { next += 1 }
        }
        for position in entries.indices where entries[position].body != nil && entries[position].failure == nil {
            try runTransaction(&entries[position], at: position)
        }
        let statements = finalStatements(entries)
        var answered: [PipelineOutcome]?
        var lost: PostgresError?
        do throws(PostgresError) { answered = try connection.pipeline(statements) } catch { lost = error }
        if let lost {
            guard lost.isUnavailable else { throw lost }
            throw CommitInDoubt(transaction: transaction, error: lost)
        }
        let result = answered ?? []
        // A statement that failed made the server skip the rest, COMMIT included: nothing committed.
        for outcome in result { if case .failed(let error) = outcome { throw error } }
        guard case .done = result[result.count - 1] else {
            throw CommitInDoubt(
                transaction: transaction, error: PostgresError(.connectionFailure, "the commit was not answered"))
        }
        outbox?.committed(result[...])
        return transaction
    }

    /// Runs a `write { }` closure under its savepoint; a failure of its own rolls it back alone,
    /// one the server asks to retry runs it again, and a lost connection fails the batch (thrown).
    private func runTransaction(_ entry: inout Entry, at position: Int) throws {
        guard let body = entry.body else { return }
        // Rolling back to the savepoint releases the locks taken after it.
        let locked = lockedCollections
        while true {
            lockedCollections = locked
            try connection.execute("SAVEPOINT s\(position)")
            let session = WriterSession(connection: connection, clock: clock) { [unowned self] layout in
                try lockCollection(layout)
            }
            do {
                try body(session)
                entry.statements = session.writes
                entry.outcomes = session.outcomes
                return
            } catch {
                let serverError = error as? PostgresError
                if serverError?.isUnavailable == true { throw error }
                try connection.execute("ROLLBACK TO SAVEPOINT s\(position)")
                lockedCollections = locked
                if serverError?.isRetryable == true && entry.attempts + 1 < limits.maxAttempts {
                    entry.attempts += 1
                    Thread.sleep(forTimeInterval: backoff(entry.attempts))
                    continue
                }
                entry.failure = Self.storeError(error, "running a write transaction")
                return
            }
        }
    }

    /// Takes the schema lock of a collection a `write { }` closure touches that the batch has not
    /// locked, and brings its layout up to the index list stored now (as ``beginUnderSchemaLock(_:)``
    /// does for the change sets' collections).
    private func lockCollection(_ layout: TableLayout) throws {
        guard !lockedCollections.contains(ObjectIdentifier(layout)) else { return }
        var statements: [(sql: String, parameters: [SQLParameter])] = [
            (
                "SELECT indexes = $2 FROM _meta WHERE collection = $1",
                [.text(layout.name), .bytes(layout.encodedIndexes)]
            )
        ]
        if hasSchemaLock {
            statements.insert(
                (
                    "SELECT \(limits.schemaLockFunction)($1::int4, $2::int4)",
                    [.int(SchemaCatalog.collectionLockSpace), .int(Int64(layout.tag))]
                ), at: 0)
        }
        guard case .done(let result) = try connection.pipeline(statements).last else {
            throw PostgresError(.connectionFailure, "the schema lock of \(layout.name) was not answered")
        }
        if result.rowCount == 1, result.bool(0, 0) == false,
            let encoded = try SchemaCatalog.storedIndexes(of: layout.name, on: connection)
        {
            _ = layout.adopt(stored: encoded)
        }
        lockedCollections.insert(ObjectIdentifier(layout))
    }

    /// The connection failed after the commit of `transaction` was sent: whether it committed is
    /// for the server to say (``learnOutcome(of:)``).
    private struct CommitInDoubt: Error {
        let transaction: Int64
        let error: PostgresError
    }

    /// What the server did with a transaction whose commit was sent.
    private enum LearnedOutcome {
        case committed
        case rolledBack
        /// Not learned, for the reason given.
        case unknown(String)
    }

    /// Asks the server whether `transaction` committed, on a connection made anew: a backend
    /// still committing says once it is done, so an answer of "in progress" is asked again for up
    /// to the statement bound (at most 10 s); a server that cannot be reached is tried three
    /// times, then the outcome is left unknown rather than holding every other save back.
    private func learnOutcome(of transaction: Int64) -> LearnedOutcome {
        guard canLearnOutcomes else { return .unknown("the server has no \(clock.statusFunction)()") }
        let budget = min(connection.timeouts.statement ?? .seconds(10), .seconds(10))
        let deadline = ContinuousClock.now + budget
        var reason = "the server still reported it in progress after \(Connection.shown(budget))"
        var unreachable = 0
        while ContinuousClock.now < deadline {
            do throws(PostgresError) {
                try connection.reconnect()
                let status = try connection.execute("SELECT \(clock.status)", [.int(transaction)]).text(0, 0)
                switch status {
                case "committed": return .committed
                case "aborted": return .rolledBack
                case "in progress": Thread.sleep(forTimeInterval: 0.05)
                default: return .unknown("the server no longer knows its status")
                }
            } catch {
                unreachable += 1
                reason = "the server could not be asked (\(error.message))"
                if unreachable == 3 { break }
                Thread.sleep(forTimeInterval: 0.1 * Double(unreachable))
            }
        }
        return .unknown(reason)
    }

    /// Begins the batch's transaction holding each written collection's lock shared, so that a
    /// declaration of one (which takes it alone) waits for the commit, and brings each up
    /// to its index list as stored now, making their statements again when it changed: a
    /// collection opened before another handle, store or process declared an index would otherwise
    /// write rows without that index's entries. One round trip, as `BEGIN` alone was, while the
    /// stored lists are the ones the layouts know (the server compares them).
    /// - Returns: The transaction's id, assigned now: the commit's identity, and what the server
    ///   is asked about should the answer to its commit be lost.
    private func beginUnderSchemaLock(_ entries: inout [Entry]) throws -> Int64 {
        var layouts: [ObjectIdentifier: TableLayout] = [:]
        for entry in entries where entry.failure == nil {
            for row in entry.statements { layouts[ObjectIdentifier(row.operation.layout)] = row.operation.layout }
        }
        let touched = Array(layouts.values)
        lockedCollections = Set(layouts.keys)
        // The written collections' locks, shared, in a statement of their own: each later statement
        // reads `_meta` as committed once they are held (a statement's snapshot is taken before it
        // waits for a lock).
        let function = limits.schemaLockFunction
        let lock: [(sql: String, parameters: [SQLParameter])] =
            hasSchemaLock && !touched.isEmpty
            ? [
                (
                    "SELECT "
                        + touched.indices.map { "\(function)($1::int4, $\($0 + 2)::int4)" }.joined(separator: ", "),
                    [.int(SchemaCatalog.collectionLockSpace)] + touched.map { .int(Int64($0.tag)) }
                )
            ] : []
        let outcomes = try connection.pipeline(
            [("BEGIN", []), ("SELECT \(clock.transactionID)", [])] + lock
                + touched.map { layout in
                    (
                        "SELECT indexes = $2 FROM _meta WHERE collection = $1",
                        [.text(layout.name), .bytes(layout.encodedIndexes)]
                    )
                })
        let first = 2 + lock.count
        var changed = false
        var transaction: Int64?
        for (position, outcome) in outcomes.enumerated() {
            switch outcome {
            case .failed(let error) where position == 2 && hasSchemaLock && error.code == .undefinedFunction:
                hasSchemaLock = false
                try connection.execute("ROLLBACK")
                return try beginUnderSchemaLock(&entries)
            case .failed(let error): throw error
            case .skipped: throw PostgresError(.connectionFailure, "the batch's transaction did not begin")
            case .done(let result) where position == 1:
                transaction = result.int(0, 0)
            case .done(let result):
                // A collection no longer stored keeps its layout: its statements fail on their own.
                guard position >= first, result.rowCount == 1 else { continue }
                let layout = touched[position - first]
                guard result.bool(0, 0) == false else {
                    layout.noteIndexListChecked()
                    continue
                }
                if let encoded = try SchemaCatalog.storedIndexes(of: layout.name, on: connection),
                    layout.adopt(stored: encoded)
                {
                    changed = true
                }
            }
        }
        guard let transaction else { throw PostgresError(.connectionFailure, "the transaction id was not answered") }
        guard changed else { return transaction }
        for position in entries.indices where entries[position].failure == nil {
            do {
                entries[position].statements = try entries[position].statements.map { row throws(DataStoreError) in
                    try RowStatements(row.operation, clock: clock)
                }
            } catch {
                entries[position].failure = error
            }
        }
        return transaction
    }

    /// The outbox rows of what the change sets that succeeded did (and a trim when one is due),
    /// then `COMMIT`: one round trip.
    private func finalStatements(_ entries: [Entry]) -> [(sql: String, parameters: [SQLParameter])] {
        var statements: [(sql: String, parameters: [SQLParameter])] = []
        if outbox != nil {
            var changes = BatchChanges()
            for entry in entries where entry.failure == nil { changes.add(entry.statements, entry.outcomes) }
            statements += outbox?.statements(for: changes.collections, time: Date()) ?? []
        }
        statements.append(("COMMIT", []))
        return statements
    }

    /// Reads a pipeline's outcomes into the entries; returns the first change set that failed
    /// (its savepoint must be rolled back), with its failure set unless it is to be retried.
    private func record(
        _ outcomes: [PipelineOutcome], owners: [(entry: Int, operation: Int?)], into entries: inout [Entry]
    ) -> Int? {
        var current = -1
        for (outcome, owner) in zip(outcomes, owners) {
            if owner.entry != current {
                current = owner.entry
                entries[current].outcomes = []
            }
            guard let operation = owner.operation else { continue }
            switch outcome {
            case .skipped:
                return current
            case .failed(let error):
                if error.isRetryable && entries[current].attempts + 1 < limits.maxAttempts {
                    entries[current].attempts += 1
                    Thread.sleep(forTimeInterval: backoff(entries[current].attempts))
                } else {
                    entries[current].failure = Self.storeError(error, "writing", entries[current], operation)
                }
                return current
            case .done(let result):
                let row = entries[current].statements[operation]
                if entries[current].outcomes.count <= operation {
                    // The first statement of an operation answers it.
                    if let failure = row.check(result) {
                        entries[current].failure = failure
                        return current
                    }
                    entries[current].outcomes.append(row.outcome(result))
                }
            }
        }
        return nil
    }

    /// The pause before retry `attempt`, doubled each time with up to half again of jitter.
    private func backoff(_ attempt: Int) -> TimeInterval {
        let (seconds, attoseconds) = limits.firstBackoff.components
        let base = (Double(seconds) + Double(attoseconds) / 1e18) * Double(1 << min(attempt - 1, 10))
        return base * Double.random(in: 1...1.5)
    }

    /// The caller's error for a server error.
    private static func storeError(
        _ error: any Error, _ what: String, _ entry: Entry? = nil, _ operation: Int? = nil
    ) -> any Error {
        guard let error = error as? PostgresError else { return error }
        if let entry, let operation, let named = entry.statements[operation].named(error) { return named }
        return DataStoreError.postgres(error, what)
    }
}
