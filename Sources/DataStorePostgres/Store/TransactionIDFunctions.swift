/// Which of PostgreSQL's two families of transaction-id functions the store reads commit
/// identities and the change feed's bounds with (``PostgresStore/Options/transactionIDFunctions``,
/// docs/postgres.md, "Other engines"). Both give the same 64-bit, epoch-extended ids.
public enum TransactionIDFunctions: Sendable, Hashable {
    /// The `xact` family when the server has it, else the `txid` family; with neither, opening
    /// the store fails with `.unsupported` naming the missing functions.
    case automatic
    /// `pg_current_xact_id()`, `pg_current_snapshot()`, `pg_snapshot_xmin` and `pg_snapshot_xmax`,
    /// which PostgreSQL has from version 13 on.
    case xact
    /// `txid_current()`, `txid_current_snapshot()`, `txid_snapshot_xmin` and `txid_snapshot_xmax`,
    /// which engines based on an older PostgreSQL have (YugabyteDB, PostgreSQL 12 and older) and
    /// later versions keep, deprecated.
    case txid
}
