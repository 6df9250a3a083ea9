import DataStoreCore
import DataStoreEngine
import Foundation

/// The change feed's outbox: the `_changes` table, one row per collection a commit touched,
/// written in the commit's own transaction (so it never disagrees with the data);
/// `_changes_trimmed`, the newest commit trimmed away; and `_changes_size`, the bytes the rows
/// hold, kept in the same transactions as the rows (docs/postgres.md, "The change feed").
enum Outbox {
    /// The channel `NOTIFY` wakes listeners on; the payload is the commit id.
    static let channel = "dsk_changes"

    /// The most rows one trim looks at (``/DataStoreEngine/ChangeFeedOptions/trimStep``, as on LMDB).
    static let trimStep = ChangeFeedOptions.trimStep

    /// What a row costs beyond its collection name and ids: its fixed columns and headers, and its
    /// entry in the primary key (an estimate of the server's, the same for every row).
    static let rowOverhead = 120
    /// What each id costs beyond its key bytes (the array element's length word).
    static let idOverhead = 4

    /// Creates the tables when missing, under the schema lock (concurrent `CREATE … IF NOT EXISTS`
    /// can otherwise collide); an outbox made before rows had sizes gets them.
    static func create(ddl: TableDDL, on connection: Connection) throws(PostgresError) {
        let present = try connection.execute(
            "SELECT to_regclass('_changes') IS NOT NULL AND to_regclass('_changes_trimmed') IS NOT NULL "
                + "AND to_regclass('_changes_size') IS NOT NULL")
        if present.bool(0, 0) == true { return }
        try connection.execute("BEGIN")
        do throws(PostgresError) {
            try connection.execute("SELECT pg_advisory_xact_lock($1)", [.int(SchemaCatalog.lockKey)])
            for statement in [ddl.outboxTable] + creation { try connection.execute(statement) }
            try connection.execute("COMMIT")
        } catch {
            _ = try? connection.execute("ROLLBACK")
            throw error
        }
    }

    /// The tables beside `_changes`, and the sizes of rows written before `bytes` was a column
    /// (once: the size table is made in the same transaction).
    private static let creation = [
        """
        CREATE TABLE IF NOT EXISTS _changes_trimmed (
            one bool PRIMARY KEY DEFAULT true CHECK (one),
            through int8 NOT NULL)
        """,
        "ALTER TABLE _changes ADD COLUMN IF NOT EXISTS bytes int8 NOT NULL DEFAULT 0",
        """
        DO $$ BEGIN
            IF to_regclass('_changes_size') IS NULL THEN
                UPDATE _changes SET bytes = \(rowOverhead) + octet_length(collection) + (
                    SELECT COALESCE(sum(octet_length(id) + \(idOverhead)), 0) FROM unnest(inserted || updated || removed) AS id);
                CREATE TABLE _changes_size (
                    one bool PRIMARY KEY DEFAULT true CHECK (one),
                    bytes int8 NOT NULL);
                INSERT INTO _changes_size SELECT true, COALESCE(sum(bytes), 0) FROM _changes;
            END IF;
        END $$
        """
    ]

    /// The statements recording `changes` as the current transaction's commit (its id read as
    /// `clock` says), at `time`: a row per collection, then the outbox's new size, which answers
    /// with it (at `sizeAt`), then the `NOTIFY`.
    static func record(_ changes: [CollectionChanges], time: Date, notify: Bool, clock: CommitClock) -> (
        statements: [(sql: String, parameters: [SQLParameter])], sizeAt: Int?
    ) {
        guard !changes.isEmpty else { return ([], nil) }
        let milliseconds = Int64((time.timeIntervalSince1970 * 1000).rounded(.down))
        var statements: [(sql: String, parameters: [SQLParameter])] = []
        var added = 0
        for (seq, change) in changes.enumerated() {
            let lists = [change.inserted, change.updated, change.removed].map { $0.map { KeyCodec.encode([$0]) } }
            // The same sum as the one `creation` gives rows written before sizes were kept.
            let bytes = lists.joined().reduce(rowOverhead + change.collection.utf8.count) { $0 + $1.count + idOverhead }
            added += bytes
            statements.append(
                (
                    "INSERT INTO _changes (commit, seq, time, collection, inserted, updated, removed, bytes) VALUES "
                        + "(\(clock.transactionID), $1, $2, $3, $4::bytea[], $5::bytea[], $6::bytea[], $7)",
                    [
                        .int(Int64(seq)), .int(milliseconds), .text(change.collection), .byteaArray(lists[0]),
                        .byteaArray(lists[1]), .byteaArray(lists[2]), .int(Int64(bytes))
                    ]
                ))
        }
        let sizeAt = statements.count
        statements.append(("UPDATE _changes_size SET bytes = bytes + $1 RETURNING bytes", [.int(Int64(added))]))
        if notify { statements.append(("SELECT pg_notify('\(channel)', \(clock.notifyPayload))", [])) }
        return (statements, sizeAt)
    }

    /// The statement trimming the oldest commits — among the ``trimStep`` oldest rows, those
    /// recorded before `cutoff` and before the first still young enough (so what is trimmed is
    /// always a prefix in commit order: writers' clocks may disagree), and as many more as it
    /// takes to bring the outbox within `maxBytes` — keeping the newest, subtracting what it
    /// deleted from the size, and noting the newest commit trimmed. It answers with a row when
    /// it trimmed something.
    static func trim(before cutoff: Date?, maxBytes: Int?) -> (sql: String, parameters: [SQLParameter]) {
        let milliseconds = cutoff.map { Int64(($0.timeIntervalSince1970 * 1000).rounded(.down)) } ?? .min
        return (
            """
            WITH oldest AS (
                SELECT commit, min(time) AS time, sum(bytes) AS bytes
                FROM (SELECT commit, time, bytes FROM _changes ORDER BY commit, seq LIMIT \(trimStep)) AS rows
                GROUP BY commit),
            ranked AS (
                SELECT commit, time, sum(bytes) OVER (ORDER BY commit) - bytes AS before FROM oldest),
            kept AS (
                SELECT COALESCE(min(commit), 9223372036854775807) AS commit FROM ranked WHERE time >= $1),
            excess AS (
                SELECT bytes - $2::int8 AS bytes FROM _changes_size),
            gone AS (
                DELETE FROM _changes WHERE commit IN (
                    SELECT commit FROM ranked
                    WHERE (commit < (SELECT commit FROM kept) OR before < (SELECT bytes FROM excess))
                        AND commit < (SELECT max(commit) FROM _changes))
                RETURNING commit, bytes),
            shrunk AS (
                UPDATE _changes_size SET bytes = _changes_size.bytes - (SELECT sum(bytes) FROM gone)
                WHERE EXISTS (SELECT 1 FROM gone))
            INSERT INTO _changes_trimmed (one, through) SELECT true, max(commit) FROM gone HAVING count(*) > 0
            ON CONFLICT (one) DO UPDATE SET through = GREATEST(_changes_trimmed.through, EXCLUDED.through)
            RETURNING through
            """,
            [.int(milliseconds), maxBytes.map { .int(Int64($0)) } ?? .null]
        )
    }
}
