import DataStoreCore
import Foundation
import LMDB
import Synchronization
import DataStoreEngine

/// The store's one record of what changed: the `_changes` database, written by the writer inside
/// each commit's own transaction (so it never disagrees with the data) and read by feeds and
/// observations at their own pace (docs/changes.md).
final class ChangeLog: Sendable {
    /// The most records the writer trims in one commit (``/DataStoreEngine/ChangeFeedOptions/trimStep``).
    static let trimStep = ChangeFeedOptions.trimStep

    /// `nil` when the feed is off, or in a read-only store that has none.
    let database: Database?
    let options: ChangeFeedOptions
    let environment: Environment
    let signal: CommitSignal
    /// The oldest record's time as the writer last read it (`nil`: not known). Never later than
    /// the true one, since records are only appended newer and trimmed oldest first.
    let oldestTime = Mutex<Int64?>(nil)
    /// Pages read so far (for tests that check a waiting reader does not spin).
    let pageReads = Atomic<Int>(0)

    /// The newest records, in the main database (`nil` when the feed is off).
    let recent: RecentChanges?
    /// Where the recent records stood after the last commit recorded here, which spares the next
    /// commit a cursor to find the oldest; read and set only inside write transactions and right
    /// after their commit, which LMDB runs one at a time.
    let recentBounds = Mutex<RecentBounds?>(nil)
    /// The store's `_meta` database, where the format version is raised before the first recent record.
    let meta: Database
    /// Whether the stored format is known to allow recent records; read and set only inside write
    /// transactions (the writer's, or a caller's commit), which LMDB runs one at a time.
    let formatAllowsRecent = Atomic<Bool>(false)

    init(environment: Environment, database: Database?, meta: Database, options: ChangeFeedOptions)
        throws(LMDBError)
    {
        self.environment = environment
        self.database = database
        self.meta = meta
        self.recent = database == nil ? nil : RecentChanges(main: try environment.openDatabase(named: nil))
        self.options = options
        self.signal = CommitSignal(latest: try environment.info().lastTransactionID, pollInterval: options.pollInterval)
        // LMDB has no notification: other processes' commits are found by polling the last transaction id.
        signal.onFirstWait { signal in signal.poll { try? environment.info().lastTransactionID } }
    }

    /// The commits recorded after `position` (after the oldest retained when `nil`), at most `limit`.
    ///
    /// - Throws: ``/DataStoreCore/DataStoreError/Code/changesTrimmed`` when commits after `position` were trimmed.
    func page(after position: Int?, limit: Int) throws(DataStoreError) -> ChangePage {
        pageReads.add(1, ordering: .relaxed)
        do {
            return try environment.read { transaction in try page(after: position, limit: limit, in: transaction) }
        } catch let error as DataStoreError {
            throw error
        } catch {
            throw DataStoreError(.storage, "reading the change log of \(environment.path) failed", underlying: error)
        }
    }

    private func page(after position: Int?, limit: Int, in transaction: borrowing ReadTransaction) throws -> ChangePage
    {
        let snapshot = transaction.snapshotID
        guard let database else { return ChangePage(events: [], snapshot: snapshot, isFull: false) }
        let trimmed = try Self.trimmedThrough(in: transaction, database)
        let start = position ?? trimmed
        // A trimmed position only needs the oldest record left, for the error.
        let records = try self.records(
            from: max(start, trimmed) + 1, limit: start < trimmed ? 1 : limit, in: transaction)
        if start < trimmed {
            throw ChangesTrimmed(
                requested: CommitID(rawValue: start), trimmedThrough: CommitID(rawValue: trimmed),
                oldestAvailable: records.first?.commit
            ).error
        }
        return ChangePage(events: records.map(\.event), snapshot: snapshot, isFull: records.count == limit)
    }

    /// Up to `limit` records from `commit` on, in commit order, from `_changes` and the recent ones.
    private func records(from commit: Int, limit: Int, in transaction: borrowing ReadTransaction) throws
        -> [ChangeRecord]
    {
        guard let database, let recent, limit > 0 else { return [] }
        func logged(_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) throws -> ChangeRecord {
            try ChangeRecord(commit: ChangeRecord.commit(ofKey: key), bytes: value)
        }
        // Past the recent records come no others: a `nil` commit ends them.
        func waiting(_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) throws -> ChangeRecord? {
            try RecentChanges.commit(ofKey: key).map { try ChangeRecord(commit: $0, bytes: value) }
        }
        var records: [ChangeRecord] = []
        try transaction.withCursor(on: database) { log in
            try transaction.withCursor(on: recent.main) { main in
                // Each cursor's current record; the older goes first.
                var nextLogged = try log.withSeek(atOrAfter: ChangeRecord.key(for: commit), logged)
                var nextWaiting = try main.withSeek(atOrAfter: RecentChanges.key(for: commit), waiting) ?? nil
                while records.count < limit, let first = Self.older(nextLogged, nextWaiting) {
                    records.append(first)
                    if first.commit == nextLogged?.commit { nextLogged = try log.withMove(.next, logged) }
                    if first.commit == nextWaiting?.commit { nextWaiting = try main.withMove(.next, waiting) ?? nil }
                }
            }
        }
        return records
    }

    /// The older of two records, either of which may be absent.
    private static func older(_ one: ChangeRecord?, _ other: ChangeRecord?) -> ChangeRecord? {
        guard let one, let other else { return one ?? other }
        return other.commit < one.commit ? other : one
    }

    /// The newest commit trimmed away (0 when none was).
    static func trimmedThrough(in transaction: borrowing some ReadableTransaction & ~Copyable, _ database: Database)
        throws -> Int
    {
        try transaction.withValue(forKey: ChangeRecord.trimmedThroughKey, in: database) { value in
            try ChangeRecord.commit(ofKey: value)
        } ?? 0
    }

    /// The last commit of the store, by any process.
    func lastCommit() throws(DataStoreError) -> Int {
        do {
            return try environment.info().lastTransactionID
        } catch {
            throw DataStoreError(.storage, "reading the last commit of \(environment.path) failed", underlying: error)
        }
    }
}

extension ChangeLog: ChangeSource {
    func changePage(after position: Int?, limit: Int) async throws(DataStoreError) -> ChangePage {
        try page(after: position, limit: limit)
    }

    var isClosed: Bool { signal.isClosed }

    func waitForCommit(after commit: Int) async -> Bool { await signal.wait(after: commit) }

    var retryInterval: Duration { options.pollInterval }
}

/// The recent records' bounds a recorded commit left (``ChangeLog/recentBounds``).
struct RecentBounds: Sendable {
    /// The write transaction that recorded them.
    var commit: Int
    /// The oldest recent record's commit (`nil`: none).
    var oldest: Int?
    /// Whether `commit` committed: only then are the bounds the store's.
    var committed = false
}
