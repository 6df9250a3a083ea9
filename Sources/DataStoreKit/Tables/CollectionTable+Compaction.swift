import DataStoreCore
import LMDB

extension CollectionTable {
    /// The collection's LMDB databases: its records', then each index's.
    var databases: [Database] { [records] + indexes.map(\.database) }

    /// Rewrites each of the collection's databases in key order into full pages: empties it in
    /// `transaction`, then appends every entry `snapshot` holds of it.
    ///
    /// `snapshot` must see the last commit, which `transaction` starts from: checked before
    /// anything is written. The pages the emptying frees keep their bytes until this transaction
    /// has committed and no reader needs them, so the snapshot reads them while they are rewritten.
    func compact(in transaction: inout WriteTransaction, from snapshot: borrowing ReadTransaction) throws {
        guard snapshot.snapshotID &+ 1 == transaction.transactionID else {
            throw DataStoreError(
                .storage,
                "cannot compact collection \(name): its snapshot (commit \(snapshot.snapshotID)) is not the commit "
                    + "write transaction \(transaction.transactionID) starts from")
        }
        for database in databases {
            try transaction.empty(database)
            try snapshot.walk(database) { key, value in
                try transaction.put(value, forKey: key, in: database, options: .append)
                return true
            }
        }
    }
}
