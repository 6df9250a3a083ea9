/// A root context's snapshot: a connection inside a `REPEATABLE READ READ ONLY` transaction,
/// which sees the commits made before its first statement and none after.
final class ContextSnapshot: Sendable {
    let connection: Connection

    /// Begins the transaction on `connection`; the server takes the snapshot at its first read.
    init(_ connection: Connection) throws(PostgresError) {
        try connection.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
        self.connection = connection
    }
}
