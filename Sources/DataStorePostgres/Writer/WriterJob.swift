import DataStoreCore
import DataStoreEngine

/// Work queued to the writer.
enum WriterJob: Sendable {
    /// A change set, the ticket it can be withdrawn by, and how to answer its caller.
    case changeSet(
        [RowOperation], ticket: UInt64,
        @Sendable (Result<(outcomes: [RowOutcome], commit: Int64), any Error>) -> Void)
    /// A `write { }` closure, run in a batch's transaction under a savepoint of its own, with the
    /// ticket it can be withdrawn by and how to answer its caller (no outcomes: the closure keeps
    /// its own result).
    case transaction(
        @Sendable (WriterSession) throws -> Void, ticket: UInt64,
        @Sendable (Result<(outcomes: [RowOutcome], commit: Int64), any Error>) -> Void)
    /// Something to run alone on the connection.
    case exclusive(@Sendable (Connection) -> Void)
    /// Writes to run alone in one transaction of the writer's, which records the changes they
    /// report in the change feed with the commit, and how to answer with the commit's identity.
    case recorded(@Sendable (Connection) throws -> [CollectionChanges], @Sendable (Result<Int64, any Error>) -> Void)

    /// The ticket of a change set or a transaction.
    var ticket: UInt64? {
        switch self {
        case .changeSet(_, let ticket, _), .transaction(_, let ticket, _): ticket
        case .exclusive, .recorded: nil
        }
    }

    /// Whether the job runs alone rather than in a batch of change sets.
    var runsAlone: Bool {
        switch self {
        case .changeSet, .transaction: false
        case .exclusive, .recorded: true
        }
    }

    func fail(_ error: any Error) {
        switch self {
        case .changeSet(_, _, let complete), .transaction(_, _, let complete): complete(.failure(error))
        case .recorded(_, let complete): complete(.failure(error))
        case .exclusive: break
        }
    }
}
