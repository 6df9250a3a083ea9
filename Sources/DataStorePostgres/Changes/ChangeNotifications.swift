/// How a ``PostgresStore`` learns of commits made by other stores (its own it knows at once).
public enum ChangeNotifications: Sendable, Hashable {
    /// `LISTEN` on a connection of its own; each commit sends a `NOTIFY`. PostgreSQL has it.
    case listen
    /// Read the newest commit every `ChangeFeedOptions.pollInterval` while a feed or observation
    /// waits, for servers without `LISTEN/NOTIFY` (CockroachDB, YugabyteDB).
    case poll
}
