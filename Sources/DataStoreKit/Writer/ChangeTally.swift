import DataStoreCore
import DataStoreEngine
import LMDB

/// What one change set changed, written down by the table layer as it writes
/// (`CollectionTable.write` and `remove`): the writer attaches a tally to each change set's
/// transaction and records what it holds in the change log, so that every write path — a
/// collection's, a context's save, a migration's transform — reaches the feed and wakes observers
/// with no call site to remember it (as PostgreSQL's `BatchChanges` and SQLite's update hook do).
final class ChangeTally {
    /// The writes noted, in order.
    private(set) var writes = NetChanges()

    /// Notes that `write` was made to the record `id` of `collection`.
    func note(_ write: NetChanges.Write, _ id: Value, in collection: String) {
        writes.note(write, id, in: collection)
    }
}

extension WriteTransaction {
    /// Notes a write of the record `id` of `collection` in the tally of the change set this
    /// transaction applies (none outside the writer's change sets: index builds, compaction).
    func noteChange(_ write: NetChanges.Write, _ id: Value, in collection: String) {
        (attachment as? ChangeTally)?.note(write, id, in: collection)
    }
}
