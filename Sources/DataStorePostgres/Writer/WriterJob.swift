import DataStoreCore

/// Work queued to the writer.
enum WriterJob: Sendable {
    /// A change set, and how to answer its caller.
    case changeSet(
        [RowOperation], @Sendable (Result<(outcomes: [RowOutcome], commit: Int64), any Error>) -> Void)
    /// Something to run alone on the connection.
    case exclusive(@Sendable (Connection) -> Void)

    func fail(_ error: any Error) {
        switch self {
        case .changeSet(_, let complete): complete(.failure(error))
        case .exclusive: break
        }
    }
}
