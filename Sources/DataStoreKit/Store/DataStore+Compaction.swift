import DataStoreCore
import LMDB

extension DataStore {
    /// Repacks the collection `name`: rewrites its records and its indexes' entries in key order
    /// into full pages, in one commit, as SQLite's `VACUUM` repacks its tables.
    ///
    /// A B-tree page that fills splits in two halves, so entries that arrive in random key order
    /// (random ids such as UUIDs; index values such as timestamps out of order) leave LMDB's pages
    /// about two-thirds full, in no order in the file. After such a bulk load, compacting makes the
    /// collection's pages fewer and lays them out in key order, so a full scan or a long index range
    /// reads fewer bytes; ``statistics()`` shows the bytes each database uses before and after.
    /// Later inserts in random order split the full pages again, so compact after bulk loads, not
    /// after every write.
    ///
    /// Documents, their versions and index entries stay byte for byte as they were: the commit
    /// records no change in the change feed, notifies no observer, and makes no context's save a
    /// conflict; snapshots taken before it read on as before. Other writes wait while it runs
    /// (about as long as writing the collection once); reads do not.
    ///
    /// The new pages are written before the old ones are freed, so the data file may grow by about
    /// the collection's size; it does not shrink afterwards: later writes reuse the pages freed.
    /// For a smaller file, write a copy with ``backup(to:compact:)``. Until the commit, LMDB keeps
    /// the pages written in memory, up to its limit of 128 Ki dirty pages (512 MiB of 4 KiB
    /// pages), beyond which it writes them out early.
    ///
    /// - Throws: ``/DataStoreCore/DataStoreError`` `.notFound` when there is no such collection;
    ///   `.storage` when the store cannot be written (nothing changed then); `.closed` after ``close()``.
    /// - Complexity: O(n) in the collection's records and index entries.
    public func compact(collection name: String) async throws {
        let storage = try storage(named: name)
        let environment = self.environment
        let bytes = try environment.read { transaction in
            try storage.databases.reduce(0) { total, database in
                total + (try transaction.statistics(of: database).bytesUsed)
            }
        }
        do {
            _ = try await writer.submit(estimatedBytes: bytes, exclusive: true) { transaction in
                // Under the write lock, a snapshot begun now sees the commit the transaction starts from.
                try environment.read { snapshot in try storage.compact(in: &transaction, from: snapshot) }
            }
        } catch let error as LMDBError {
            throw DataStoreError(
                .storage, "cannot compact collection \(name) in \(path): \(error.context): \(error.reason)",
                underlying: error)
        }
    }
}
