/// A root context's snapshot: a connection inside a `REPEATABLE READ READ ONLY` transaction,
/// which sees the commits made before its first statement and none after.
final class ContextSnapshot: Sendable {
    let connection: Connection

    /// The savepoint at the transaction's start: a statement that fails (one naming an index
    /// another store dropped) aborts only what follows it, and the snapshot reads on.
    private static let savepoint = "dsk_snapshot"

    /// Begins the transaction on `connection`; the server takes the snapshot at its first read.
    init(_ connection: Connection) throws(PostgresError) {
        try connection.executeScript(
            "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY; SAVEPOINT \(Self.savepoint)")
        self.connection = connection
    }

    /// Makes the transaction usable again after a statement failed, keeping its snapshot.
    func recover() throws(PostgresError) {
        try connection.execute("ROLLBACK TO SAVEPOINT \(Self.savepoint)")
    }
}
