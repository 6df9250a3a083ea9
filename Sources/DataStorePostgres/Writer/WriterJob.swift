import DataStoreCore

/// Work queued to the writer.
enum WriterJob: Sendable {
    /// A change set, the ticket it can be withdrawn by, and how to answer its caller.
    case changeSet(
        [RowOperation], ticket: UInt64,
        @Sendable (Result<(outcomes: [RowOutcome], commit: Int64), any Error>) -> Void)
    /// Something to run alone on the connection.
    case exclusive(@Sendable (Connection) -> Void)

    func fail(_ error: any Error) {
        switch self {
        case .changeSet(_, _, let complete): complete(.failure(error))
        case .exclusive: break
        }
    }
}
