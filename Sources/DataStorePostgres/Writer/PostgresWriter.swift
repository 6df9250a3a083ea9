import DataStoreCore
import Dispatch
import Foundation
import Synchronization

/// The one writer of a ``PostgresStore``: queues change sets from every caller and commits them
/// in batches on its own thread and connection, as the LMDB store's writer does.
///
/// A batch is one transaction; each change set runs under a savepoint of its own, so one that
/// fails (a unique violation, a conflict) is rolled back alone and only its caller sees the
/// error. The statements of a batch are sent in libpq's pipeline mode: one round trip for the
/// batch and one for the commit when nothing fails, one more per change set that fails.
final class PostgresWriter: Sendable {
    /// Bounds and retry policy.
    struct Limits: Sendable {
        /// Change sets per batch: at most 64 savepoints, which PostgreSQL tracks without overflow.
        var maxBatch = 64
        /// Attempts of a change set that meets a serialization failure or a deadlock.
        var maxAttempts = 6
        /// The first back-off before a retry, doubled each time.
        var firstBackoff: Duration = .milliseconds(2)
        /// The function each batch takes the schema lock with (``PostgresStore/Options``).
        var schemaLockFunction = "pg_advisory_xact_lock_shared"
        /// The longest a caller waits for its change set (``PostgresStore/Options/saveTimeout``).
        var saveTimeout: Duration? = nil
    }

    private let queue = WriterQueue()
    private let batcher: BatchCommitter
    private let saveTimeout: Duration?
    /// The bounds of waiting saves.
    private let deadlines = SaveDeadlines()

    /// Starts the writer thread over `connection`, which it alone uses from now on; `clock` names
    /// the server's transaction-id functions, `feed` says what it records for the change feed, and
    /// `committed` hears each commit's identity.
    init(
        connection: Connection, limits: Limits = Limits(), clock: CommitClock, feed: FeedSettings? = nil,
        canLearnOutcomes: Bool = true, committed: @escaping @Sendable (Int64) -> Void = { _ in }
    ) {
        saveTimeout = limits.saveTimeout
        batcher = BatchCommitter(
            connection: connection, limits: limits, clock: clock, feed: feed, canLearnOutcomes: canLearnOutcomes,
            committed: committed)
        let thread = Thread { [queue, batcher] in
            Thread.current.name = "PostgresWriter"
            Self.run(queue, batcher: batcher, limit: limits.maxBatch)
        }
        thread.start()
    }

    deinit { close() }

    /// How many change sets the writer has taken into batches, committed or not (for tests).
    var takenChangeSets: Int { queue.state.withLock { $0.taken } }

    /// How many batches and change sets were committed (for tests and the benchmark).
    var metrics: (batches: Int, changeSets: Int) { queue.state.withLock { ($0.batches, $0.changeSets) } }

    /// Queues `operations` as one change set; returns what they found and the commit identity
    /// once the batch carrying them has committed.
    /// - Throws: ``/DataStoreCore/DataStoreError`` of the failing operation (only this change set was rolled
    ///   back); `.network` when the server went away before the commit, or rolled it back (nothing
    ///   of it was applied); `.outcomeUnknown` when the answer to the commit was lost and the server
    ///   could not say, or the save's bound passed while it was being committed; `.timedOut` when
    ///   the bound passed while it was queued (it is withdrawn: nothing written); `.closed` after close.
    func submit(_ operations: [RowOperation]) async throws -> (outcomes: [RowOutcome], commit: Int64) {
        try await submit { ticket, answer in .changeSet(operations, ticket: ticket, answer) }
    }

    /// Queues `body` to run in a batch's transaction under a savepoint of its own; returns the
    /// commit identity once the batch has committed. `body` may run more than once (after a
    /// serialization failure or deadlock). Throws as ``submit(_:)``, or what `body` threw.
    func transaction(_ body: @escaping @Sendable (WriterSession) throws -> Void) async throws -> Int64 {
        try await submit { ticket, answer in .transaction(body, ticket: ticket, answer) }.commit
    }

    /// Queues the job `make` builds with its ticket and its answer, and waits for the answer.
    private func submit(
        _ make: @escaping @Sendable (UInt64, @escaping SaveAnswer.Give) -> WriterJob
    ) async throws -> (outcomes: [RowOutcome], commit: Int64) {
        try await withCheckedThrowingContinuation { continuation in
            let answer = SaveAnswer(continuation)
            guard let ticket = enqueue(make, answer) else { return }
            guard let saveTimeout else { return }
            answer.onAnswer { [deadlines] in deadlines.cancel(ticket) }
            deadlines.add(ticket, at: .now + saveTimeout) { [queue] in
                guard !answer.isGiven else { return }
                if queue.state.withLock({ $0.withdraw(ticket) }) {
                    answer.give(
                        .failure(
                            DataStoreError(
                                .timedOut,
                                "the save waited \(Connection.shown(saveTimeout)) in the writer's queue "
                                    + "(PostgresStore.Options.saveTimeout) and was withdrawn: nothing of it was written"
                            )))
                } else {
                    answer.give(
                        .failure(
                            DataStoreError(
                                .outcomeUnknown,
                                "the save waited \(Connection.shown(saveTimeout)) (PostgresStore.Options.saveTimeout) "
                                    + "while its commit was in flight: it may or may not be written. Read a document "
                                    + "it wrote once the server answers: its version says whether it landed")))
                }
            }
        }
    }

    /// Runs `body` alone on the writer's connection, between batches (schema changes).
    func exclusive<R: Sendable>(_ body: @escaping @Sendable (Connection) throws -> R) async throws -> R {
        try await withCheckedThrowingContinuation { continuation in
            enqueue(
                .exclusive { connection in
                    continuation.resume(with: Result { try body(connection) })
                })
        }
    }

    /// Runs `body` alone on the writer's connection in one transaction, which also records the
    /// changes `body` reports in the change feed; returns the commit's identity.
    /// - Throws: What `body` throws (nothing of it committed); `.outcomeUnknown` when the answer to
    ///   the commit was lost and the server could not say; `.network`; `.closed` after close.
    func recorded(_ body: @escaping @Sendable (Connection) throws -> [CollectionChanges]) async throws -> Int64 {
        try await withCheckedThrowingContinuation { continuation in
            enqueue(.recorded(body) { continuation.resume(with: $0) })
        }
    }

    /// Stops accepting work; what is queued still commits, then the thread ends.
    func close() {
        let wasOpen = queue.state.withLock { state in
            defer { state.closed = true }
            return !state.closed
        }
        if wasOpen { queue.wake.signal() }
        deadlines.close()
    }

    /// Queues a change set or a transaction answered through `answer`; returns its ticket, or `nil` (having
    /// answered) once the writer is closed.
    private func enqueue(_ make: (UInt64, @escaping SaveAnswer.Give) -> WriterJob, _ answer: SaveAnswer) -> UInt64? {
        let ticket = queue.state.withLock { state -> UInt64? in
            guard !state.closed else { return nil }
            state.nextTicket += 1
            state.pending.append(make(state.nextTicket) { answer.give($0) })
            return state.nextTicket
        }
        guard let ticket else {
            answer.give(.failure(DataStoreError(.closed, "the PostgreSQL store is closed")))
            return nil
        }
        queue.wake.signal()
        return ticket
    }

    private func enqueue(_ job: WriterJob) {
        let accepted = queue.state.withLock { state -> Bool in
            guard !state.closed else { return false }
            state.pending.append(job)
            return true
        }
        guard accepted else {
            job.fail(DataStoreError(.closed, "the PostgreSQL store is closed"))
            return
        }
        queue.wake.signal()
    }

    /// The writer thread: waits for work, commits what gathered meanwhile, until closed.
    private static func run(_ queue: WriterQueue, batcher: BatchCommitter, limit: Int) {
        while true {
            queue.wake.wait()
            while true {
                let (jobs, finished) = queue.state.withLock { state -> ([WriterJob], Bool) in
                    let taken = WriterState.takeBatch(&state.pending, limit: limit)
                    if taken.first?.runsAlone == false { state.taken += taken.count }
                    return (taken, taken.isEmpty && state.closed)
                }
                if finished { return }
                if jobs.isEmpty { break }
                if case .exclusive(let body) = jobs[0] {
                    batcher.runExclusive(body)
                    continue
                }
                if case .recorded(let body, let complete) = jobs[0] {
                    complete(batcher.runRecorded(body))
                    continue
                }
                let committed = batcher.commit(jobs)
                queue.state.withLock { state in
                    state.batches += 1
                    state.changeSets += committed
                }
            }
        }
    }
}

/// A caller's wait for its change set, answered once: by the writer, or by the save's bound
/// when that passes first (the writer's later answer is then dropped).
private final class SaveAnswer: Sendable {
    typealias Outcome = Result<(outcomes: [RowOutcome], commit: Int64), any Error>
    typealias Waiter = CheckedContinuation<(outcomes: [RowOutcome], commit: Int64), any Error>
    typealias Give = @Sendable (Outcome) -> Void

    /// The caller while it waits, and what to do once it has its answer.
    private struct State {
        var continuation: Waiter?
        var answered: (@Sendable () -> Void)?
    }

    private let state: Mutex<State>

    init(_ continuation: Waiter) {
        state = Mutex(State(continuation: continuation))
    }

    /// Whether the caller has its answer.
    var isGiven: Bool {
        state.withLock { state -> Bool in
            guard case .some = state.continuation else { return true }
            return false
        }
    }

    /// Calls `body` once the caller has its answer (at once, if it has).
    func onAnswer(_ body: @escaping @Sendable () -> Void) {
        let given = state.withLock { state -> Bool in
            if state.continuation == nil { return true }
            state.answered = body
            return false
        }
        if given { body() }
    }

    /// Answers the caller, unless it has its answer already.
    func give(_ outcome: Outcome) {
        let (continuation, answered) = state.withLock { state in
            defer { (state.continuation, state.answered) = (nil, nil) }
            return (state.continuation, state.answered)
        }
        continuation?.resume(with: outcome)
        if continuation != nil { answered?() }
    }
}
