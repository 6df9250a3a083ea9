import DataStoreCore

/// The SQL expressions that read the server's transaction ids — the current transaction's (a
/// commit's identity and the version of every row it writes) and the current snapshot's bounds
/// (the change feed's horizon) — in one family of functions (``TransactionIDFunctions``).
struct CommitClock: Sendable, Hashable {
    /// The current transaction's id as `int8`, assigned now if it has none yet.
    let transactionID: String
    /// The oldest transaction id the current snapshot sees as still running, as `int8`.
    let snapshotXmin: String
    /// The first transaction id the current snapshot sees as not yet assigned, as `int8`.
    let snapshotXmax: String
    /// The current transaction's id as text: the payload of the commit's `NOTIFY`.
    let notifyPayload: String
    /// Every function the expressions call.
    let functions: [String]
    /// A transaction's status (`committed`, `aborted`, `in progress`, or `NULL` when too old)
    /// from its id as `$1` (`int8`): how a commit whose answer was lost is learned.
    let status: String
    /// The function ``status`` calls, which some engines lack (their lost commits stay unknown).
    let statusFunction: String

    /// PostgreSQL 13 and later.
    static let xact = CommitClock(
        transactionID: "pg_current_xact_id()::text::int8",
        snapshotXmin: "pg_snapshot_xmin(pg_current_snapshot())::text::int8",
        snapshotXmax: "pg_snapshot_xmax(pg_current_snapshot())::text::int8",
        notifyPayload: "pg_current_xact_id()::text",
        functions: ["pg_current_xact_id", "pg_current_snapshot", "pg_snapshot_xmin", "pg_snapshot_xmax"],
        status: "pg_xact_status($1::text::xid8)", statusFunction: "pg_xact_status")

    /// Engines based on an older PostgreSQL; the functions already answer `int8`.
    static let txid = CommitClock(
        transactionID: "txid_current()",
        snapshotXmin: "txid_snapshot_xmin(txid_current_snapshot())",
        snapshotXmax: "txid_snapshot_xmax(txid_current_snapshot())",
        notifyPayload: "txid_current()::text",
        functions: ["txid_current", "txid_current_snapshot", "txid_snapshot_xmin", "txid_snapshot_xmax"],
        status: "txid_status($1)", statusFunction: "txid_status")

    /// The clock of `family` (`nil` for ``TransactionIDFunctions/automatic``).
    static func of(_ family: TransactionIDFunctions) -> CommitClock? {
        switch family {
        case .automatic: nil
        case .xact: xact
        case .txid: txid
        }
    }

    /// The functions of both families the server has, in one round trip.
    static func available(on connection: Connection) throws(PostgresError) -> Set<String> {
        let names = xact.functions + txid.functions + [xact.statusFunction, txid.statusFunction]
        // The names are this type's constants, never user input.
        let found = try connection.execute(
            "SELECT " + names.map { "to_regproc('\($0)') IS NOT NULL" }.joined(separator: ", "))
        return Set(names.indices.filter { found.bool(0, $0) == true }.map { names[$0] })
    }

    /// The clock `requested` names among those whose functions are all `available` (automatic:
    /// the `xact` family first, as the one not deprecated).
    /// - Throws: ``/DataStoreCore/DataStoreError`` `.unsupported` naming the functions the server
    ///   at `server` lacks.
    static func choose(_ requested: TransactionIDFunctions, available: Set<String>, server: String)
        throws(DataStoreError) -> CommitClock
    {
        let candidates = of(requested).map { [$0] } ?? [xact, txid]
        if let clock = candidates.first(where: { $0.functions.allSatisfy(available.contains) }) { return clock }
        let missing = candidates.map { clock in
            clock.functions.filter { !available.contains($0) }.map { "\($0)()" }.joined(separator: ", ")
        }
        throw DataStoreError(
            .unsupported,
            "the server \(server.isEmpty ? "the PG* variables name" : server) lacks "
                + missing.joined(separator: ", and the older ")
                + ", which the store reads commit identities and the change feed's bounds with")
    }
}
