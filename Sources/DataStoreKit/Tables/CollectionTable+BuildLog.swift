import DataStoreCore
import LMDB

extension CollectionTable {
    /// Notes in `log` a write in `transaction` of the record under `idKey`, which was `document`
    /// before it (`nil`: absent), instead of maintaining `index`.
    func noteWrite(
        of idKey: [UInt8], before document: Document?, in index: IndexTable, log: IndexBuildLog, transaction: Int
    ) {
        guard log.needsNote(of: idKey, in: transaction) else { return }
        // Entries that cannot be computed are found by a scan in the build's last step.
        let keys: [[UInt8]]?
        if let document {
            keys = try? index.entries(for: document, idKey: idKey, collection: name).map(\.key)
        } else {
            keys = []
        }
        log.note(idKey, in: transaction, keysBefore: keys)
    }

    /// Makes `index` agree with every record `log` noted: deletes the entries the build's snapshot
    /// gave the record and puts those of the record as stored now (none when it is gone).
    /// - Complexity: O(w log n) for w records noted; a record whose entries were not known costs a
    ///   scan of the index.
    func applyBuildLog(_ log: IndexBuildLog, to index: IndexTable, in transaction: inout WriteTransaction) throws {
        let fromBytes = Self.readsFieldsFromBytes(index.definition)
        for (idKey, keysBefore) in log.writesAfterSnapshot() {
            if let keysBefore {
                for key in keysBefore { try transaction.delete(key, in: index.database) }
            } else {
                try purgeEntries(of: idKey, in: index, transaction: &transaction)
            }
            let current = try transaction.withValue(forKey: idKey, in: records) { record in
                (try buildEntries(of: record, idKey: idKey, in: index, fromBytes: fromBytes), Array(record))
            }
            guard let (entries, record) = current else { continue }
            let value = index.entryValue(record: record)
            for entry in entries { try transaction.put(value, forKey: entry.key, in: index.database) }
        }
    }
}
