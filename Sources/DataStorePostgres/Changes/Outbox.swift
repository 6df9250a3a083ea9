import DataStoreCore
import DataStoreKit
import Foundation

/// The change feed's outbox: the `_changes` table, one row per collection a commit touched,
/// written in the commit's own transaction (so it never disagrees with the data), and
/// `_changes_trimmed`, the newest commit trimmed away (docs/postgres.md, "The change feed").
enum Outbox {
    /// The channel `NOTIFY` wakes listeners on; the payload is the commit id.
    static let channel = "dsk_changes"

    /// Creates the tables when missing, under the schema lock (concurrent `CREATE … IF NOT EXISTS`
    /// can otherwise collide).
    static func create(on connection: Connection) throws(PostgresError) {
        let present = try connection.execute(
            "SELECT to_regclass('_changes') IS NOT NULL AND to_regclass('_changes_trimmed') IS NOT NULL")
        if present.bool(0, 0) == true { return }
        try connection.execute("BEGIN")
        do throws(PostgresError) {
            try connection.execute("SELECT pg_advisory_xact_lock($1)", [.int(SchemaCatalog.lockKey)])
            try connection.execute(
                """
                CREATE TABLE IF NOT EXISTS _changes (
                    commit int8 NOT NULL,
                    seq int4 NOT NULL,
                    time int8 NOT NULL,
                    collection text NOT NULL,
                    inserted bytea[] NOT NULL,
                    updated bytea[] NOT NULL,
                    removed bytea[] NOT NULL,
                    PRIMARY KEY (commit, seq))
                """)
            try connection.execute(
                """
                CREATE TABLE IF NOT EXISTS _changes_trimmed (
                    one bool PRIMARY KEY DEFAULT true CHECK (one),
                    through int8 NOT NULL)
                """)
            try connection.execute("COMMIT")
        } catch {
            _ = try? connection.execute("ROLLBACK")
            throw error
        }
    }

    /// The statements recording `changes` as the current transaction's commit, at `time`.
    static func record(_ changes: [CollectionChanges], time: Date, notify: Bool) -> [(
        sql: String, parameters: [SQLParameter]
    )] {
        let milliseconds = Int64((time.timeIntervalSince1970 * 1000).rounded(.down))
        var statements: [(sql: String, parameters: [SQLParameter])] = []
        for (seq, change) in changes.enumerated() {
            statements.append(
                (
                    "INSERT INTO _changes (commit, seq, time, collection, inserted, updated, removed) "
                        + "VALUES (pg_current_xact_id()::text::int8, $1, $2, $3, $4::bytea[], $5::bytea[], $6::bytea[])",
                    [
                        .int(Int64(seq)), .int(milliseconds), .text(change.collection), keys(change.inserted),
                        keys(change.updated), keys(change.removed)
                    ]
                ))
        }
        if notify && !statements.isEmpty {
            statements.append(("SELECT pg_notify('\(channel)', pg_current_xact_id()::text)", []))
        }
        return statements
    }

    /// The statement trimming the oldest commits recorded before `cutoff` — among the 32 oldest
    /// rows, those before the first that is still young enough, so what is trimmed is always a
    /// prefix in commit order (writers' clocks may disagree) — keeping the newest, and noting the
    /// newest commit trimmed.
    static func trim(before cutoff: Date) -> (sql: String, parameters: [SQLParameter]) {
        let milliseconds = Int64((cutoff.timeIntervalSince1970 * 1000).rounded(.down))
        return (
            """
            WITH oldest AS (
                SELECT commit, time FROM _changes ORDER BY commit, seq LIMIT 32),
            kept AS (
                SELECT COALESCE(min(commit), 9223372036854775807) AS commit FROM oldest WHERE time >= $1),
            gone AS (
                DELETE FROM _changes WHERE commit IN (
                    SELECT commit FROM oldest WHERE commit < (SELECT commit FROM kept)
                        AND commit < (SELECT max(commit) FROM _changes))
                RETURNING commit)
            INSERT INTO _changes_trimmed (one, through) SELECT true, max(commit) FROM gone HAVING count(*) > 0
            ON CONFLICT (one) DO UPDATE SET through = GREATEST(_changes_trimmed.through, EXCLUDED.through)
            """,
            [.int(milliseconds)]
        )
    }

    /// Ids as a `bytea[]` of their ordered keys (docs/encoding.md).
    private static func keys(_ ids: [Value]) -> SQLParameter {
        .byteaArray(ids.map { KeyCodec.encode([$0]) })
    }
}
