import DataStoreCore
import DataStoreEngine
import Foundation
import Synchronization

/// The change feed of a ``PostgresStore`` read from its outbox (``Outbox``).
///
/// Commit ids are server transaction ids, which are assigned when a transaction first writes, so
/// a transaction with a smaller id can commit after one with a larger. A read therefore delivers
/// only commits below the oldest transaction still running (the snapshot's `xmin`): every one of
/// those has ended, so no smaller id can appear later, and each commit is delivered once, in id
/// order — which is commit order for one store's writer.
final class PostgresChangeSource: ChangeSource, Sendable {
    let pool: ConnectionPool
    /// The store's reader threads, where pages are read for feeds (libpq's calls block).
    let readers: ReaderThreads
    let options: ChangeFeedOptions
    let signal: CommitSignal
    /// The SQL of the server's transaction ids, the feed's bounds among them.
    let clock: CommitClock
    /// Pages read so far (for tests that wait until a reader is parked).
    private let reads = Atomic<Int>(0)

    init(pool: ConnectionPool, readers: ReaderThreads, options: ChangeFeedOptions, clock: CommitClock, latest: Int) {
        self.pool = pool
        self.clock = clock
        self.readers = readers
        self.options = options
        self.signal = CommitSignal(latest: latest, pollInterval: options.pollInterval)
    }

    var isClosed: Bool { signal.isClosed }
    var pageReads: Int { reads.load(ordering: .relaxed) }
    var retryInterval: Duration { options.pollInterval }

    func waitForCommit(after commit: Int) async -> Bool { await signal.wait(after: commit) }

    /// The horizon: every commit up to it has ended (the oldest running transaction's id, less one).
    func lastCommit() throws(DataStoreError) -> Int {
        try read("reading the change feed's horizon") { [clock] connection in
            Int(try connection.execute("SELECT \(clock.snapshotXmin)").int(0, 0) ?? 1) - 1
        }
    }

    /// One past the newest transaction that has ended (the snapshot's `xmax`): every commit made
    /// so far is below it, though a transaction still running may hold an id above it.
    func nextCommit() throws(DataStoreError) -> Int {
        try read("reading the server's next transaction id") { [clock] connection in
            Int(try connection.execute("SELECT \(clock.snapshotXmax)").int(0, 0) ?? 0)
        }
    }

    /// The newest commit recorded (by any store), or 0.
    func newestRecorded() throws(DataStoreError) -> Int {
        try read("reading the change feed") { connection in
            Int(try connection.execute("SELECT COALESCE(max(commit), 0) FROM _changes").int(0, 0) ?? 0)
        }
    }

    func changePage(after position: Int?, limit: Int) async throws(DataStoreError) -> ChangePage {
        do { return try await readers.run { [self] in try readPage(after: position, limit: limit) } } catch {
            let failure =
                error as? DataStoreError ?? DataStoreError(.storage, "reading the change feed failed: \(error)")
            // A feed reads once more after the store closed (its reader threads with it), to
            // deliver every commit made before.
            guard failure.code == .closed, signal.isClosed else { throw failure }
            return try readPage(after: position, limit: limit)
        }
    }

    /// ``changePage(after:limit:)`` on the caller's thread.
    func readPage(after position: Int?, limit: Int) throws(DataStoreError) -> ChangePage {
        defer { reads.add(1, ordering: .relaxed) }
        let page = try read("reading the change feed") { connection in
            try connection.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
            let page = try Self.page(
                after: position, limit: limit, enabled: options.isEnabled, clock: clock, on: connection)
            try connection.execute("COMMIT")
            return page
        }
        signal.readThrough(page.snapshot)
        return page
    }

    private static func page(
        after position: Int?, limit: Int, enabled: Bool, clock: CommitClock, on connection: Connection
    ) throws -> ChangePage {
        let bounds = try connection.execute(
            "SELECT \(clock.snapshotXmin), "
                + (enabled ? "COALESCE((SELECT through FROM _changes_trimmed), 0)" : "0::int8"))
        let horizon = Int(bounds.int(0, 0) ?? 1) - 1
        guard enabled else { return ChangePage(events: [], snapshot: horizon, isFull: false) }
        let trimmed = Int(bounds.int(0, 1) ?? 0)
        let start = position ?? trimmed
        if start < trimmed {
            let oldest = try connection.execute(
                "SELECT min(commit) FROM _changes WHERE commit > $1 AND commit <= $2",
                [.int(Int64(trimmed)), .int(Int64(horizon))]
            ).int(0, 0)
            throw ChangesTrimmed(
                requested: CommitID(rawValue: start), trimmedThrough: CommitID(rawValue: trimmed),
                oldestAvailable: oldest.map { CommitID(rawValue: Int($0)) }
            ).error
        }
        let rows = try connection.execute(
            """
            SELECT commit, time, collection, inserted, updated, removed FROM _changes
            WHERE commit IN (
                SELECT DISTINCT commit FROM _changes WHERE commit > $1 AND commit <= $2 ORDER BY commit LIMIT $3)
            ORDER BY commit, seq
            """, [.int(Int64(max(start, trimmed))), .int(Int64(horizon)), .int(Int64(limit))])
        let events = try events(rows)
        return ChangePage(events: events, snapshot: horizon, isFull: events.count == limit)
    }

    /// The outbox rows as events, one per commit.
    private static func events(_ rows: QueryResult) throws(DataStoreError) -> [CommitEvent] {
        var events: [CommitEvent] = []
        var current: (commit: Int, time: Int64, changes: [CollectionChanges])?
        for row in 0..<rows.rowCount {
            let commit = Int(rows.int(row, 0) ?? 0)
            if let open = current, open.commit != commit {
                events.append(Self.event(open))
                current = nil
            }
            var change = CollectionChanges(collection: rows.text(row, 2) ?? "")
            change.inserted = try ids(rows, row, 3, commit)
            change.updated = try ids(rows, row, 4, commit)
            change.removed = try ids(rows, row, 5, commit)
            if current == nil { current = (commit, rows.int(row, 1) ?? 0, []) }
            current?.changes.append(change)
        }
        if let open = current { events.append(Self.event(open)) }
        return events
    }

    private static func event(_ row: (commit: Int, time: Int64, changes: [CollectionChanges])) -> CommitEvent {
        CommitEvent(
            commit: CommitID(rawValue: row.commit), time: Date(timeIntervalSince1970: Double(row.time) / 1000),
            changes: row.changes)
    }

    private static func ids(_ rows: QueryResult, _ row: Int, _ column: Int, _ commit: Int) throws(DataStoreError)
        -> [Value]
    {
        guard let keys = rows.byteaArray(row, column) else {
            throw DataStoreError(.codec, "the change feed's row of commit \(commit) holds no id list")
        }
        var ids: [Value] = []
        for key in keys {
            guard let id = try? KeyCodec.decode(key).first else {
                throw DataStoreError(
                    .codec, "the change feed's row of commit \(commit) holds an id that does not decode")
            }
            ids.append(id)
        }
        return ids
    }

    /// `body` on a pooled connection, its errors as the store's.
    private func read<R>(_ what: String, _ body: (Connection) throws -> R) throws(DataStoreError) -> R {
        do { return try pool.read(what, body) } catch let error as DataStoreError { throw error } catch {
            throw DataStoreError(.storage, "\(what) failed: \(error)", underlying: error)
        }
    }
}
