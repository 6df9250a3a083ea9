import Synchronization

/// A root context's snapshot: a connection inside a `REPEATABLE READ READ ONLY` transaction,
/// which sees the commits made before its first statement and none after.
final class ContextSnapshot: Sendable {
    let connection: Connection
    /// Each collection's index list as `_meta` held it in this snapshot, read once.
    private let indexLists = Mutex<[String: [StoredIndex]]>([:])

    /// The savepoint at the transaction's start, which a refused statement (one naming an index
    /// another store dropped) rolls back to so that the snapshot reads on. Rolling back to it
    /// also lets go of the tables' locks the transaction took, so other stores may then change
    /// the tables this context read; what it plans over stays what its snapshot holds
    /// (``indexes(of:)``).
    private static let savepoint = "dsk_snapshot"

    /// Begins the transaction on `connection`; the server takes the snapshot at its first read.
    init(_ connection: Connection) throws(PostgresError) {
        try connection.executeScript(
            "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY; SAVEPOINT \(Self.savepoint)")
        self.connection = connection
    }

    /// Makes the transaction usable again after a statement failed, keeping its snapshot; returns
    /// why it could not, or `nil`.
    func recoveryFailure() -> PostgresError? {
        do throws(PostgresError) {
            try connection.execute("ROLLBACK TO SAVEPOINT \(Self.savepoint)")
            return nil
        } catch {
            return error
        }
    }

    /// The indexes of `layout` this snapshot can be read through: those `_meta` listed in it that
    /// the collection still has. An index declared after the snapshot began is left out, since
    /// the rows the snapshot sees do not hold its keys (they were written after).
    func indexes(of layout: TableLayout) throws(PostgresError) -> [StoredIndex] {
        let listed: [StoredIndex]
        if let known = indexLists.withLock({ $0[layout.name] }) {
            listed = known
        } else {
            listed =
                try SchemaCatalog.storedIndexes(of: layout.name, on: connection)
                .map(SchemaCatalog.indexes(decoding:)) ?? []
            indexLists.withLock { $0[layout.name] = listed }
        }
        let current = layout.indexes
        return listed.filter { index in
            current.contains { $0.definition == index.definition && $0.column == index.column }
        }
    }
}
