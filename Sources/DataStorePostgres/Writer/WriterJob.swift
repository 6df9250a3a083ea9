import DataStoreCore
import DataStoreEngine

/// Work queued to the writer.
enum WriterJob: Sendable {
    /// A change set, the ticket it can be withdrawn by, and how to answer its caller.
    case changeSet(
        [RowOperation], ticket: UInt64,
        @Sendable (Result<(outcomes: [RowOutcome], commit: Int64), any Error>) -> Void)
    /// Something to run alone on the connection.
    case exclusive(@Sendable (Connection) -> Void)
    /// Writes to run alone in one transaction of the writer's, which records the changes they
    /// report in the change feed with the commit, and how to answer with the commit's identity.
    case recorded(@Sendable (Connection) throws -> [CollectionChanges], @Sendable (Result<Int64, any Error>) -> Void)

    /// Whether the job runs alone rather than in a batch of change sets.
    var runsAlone: Bool {
        if case .changeSet = self { return false }
        return true
    }

    func fail(_ error: any Error) {
        switch self {
        case .changeSet(_, _, let complete): complete(.failure(error))
        case .recorded(_, let complete): complete(.failure(error))
        case .exclusive: break
        }
    }
}
