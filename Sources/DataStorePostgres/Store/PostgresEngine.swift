/// The engine behind the server, where the store must declare its tables differently
/// (``PostgresStore/Options/engine``, docs/postgres.md, "Other engines").
public enum PostgresEngine: Sendable, Hashable {
    /// PostgreSQL, and engines that take its DDL as it is.
    case postgreSQL
    /// YugabyteDB, which shards a table by a hash of its first key column unless that column is
    /// declared `ASC`, so that a range scan would touch every tablet: the store declares every
    /// key column it scans by range `ASC` — the primary keys of collection tables, side tables
    /// and the change feed's outbox (`PRIMARY KEY (id ASC)`, YugabyteDB's syntax), and the
    /// b-trees of index keys (`(k1 ASC)`).
    case yugabyteDB
}
