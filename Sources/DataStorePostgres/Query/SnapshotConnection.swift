import DataStoreCore

/// The connection a ``PostgresSnapshot`` reads through, inside its `REPEATABLE READ` transaction,
/// for as long as its read closure runs; and the first error a cursor's `for`-`in` loop met,
/// which the closure's `read` throws when it returns.
final class SnapshotConnection {
    private let connection: Connection
    private let label: String
    private var isOpen = true
    /// The first error a cursor's iteration ended on.
    private(set) var deferred: (any Error)?

    init(_ connection: Connection, label: String) {
        self.connection = connection
        self.label = label
    }

    /// Runs `body` on the connection while the read closure runs.
    /// - Throws: ``/DataStoreCore/DataStoreError/Code/closed`` once it has returned.
    func use<R>(_ body: (Connection) throws -> R) throws -> R {
        guard isOpen else { throw DataStoreError(.closed, "\(label) was used after its read closure returned") }
        return try body(connection)
    }

    /// Keeps the first error an iteration ended on.
    func deferError(_ error: any Error) {
        if deferred == nil { deferred = error }
    }

    /// Ends the snapshot's use of the connection.
    func close() { isOpen = false }

    /// Runs `body` inside a `REPEATABLE READ READ ONLY` transaction on `connection`, so that all
    /// its statements read one snapshot.
    static func inSnapshot<R>(_ connection: Connection, _ body: () throws -> R) throws -> R {
        try connection.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
        do {
            let result = try body()
            try connection.execute("COMMIT")
            return result
        } catch {
            _ = try? connection.execute("ROLLBACK")
            throw error
        }
    }
}
