import DataStoreCore
import LMDB

extension CollectionTable {
    /// Replaces every record by what `transform` returns for its document, or removes it for
    /// `nil`, with its index entries, inside `transaction`; unchanged documents are not written.
    /// Records are read `chunk` at a time, so only one chunk's documents are in memory.
    ///
    /// - Throws: ``/DataStoreCore/DataStoreError/Code/invalidValue`` when `transform` changes a document's id,
    ///   and whatever `transform` or a write throws.
    /// - Complexity: O(n) records, each decoded once and written at most once.
    func transformAll(
        _ transform: (Document) throws -> Document?, chunk: Int = 512, in transaction: inout WriteTransaction
    ) throws {
        var after: [UInt8]? = nil
        while true {
            let batch = try recordChunk(after: after, limit: chunk, in: &transaction)
            guard let last = batch.last else { return }
            for (key, document) in batch {
                let id = try document[idField] ?? KeyCodec.decode(key).first.flatMap { $0 } ?? .null
                guard let changed = try transform(document) else {
                    _ = try remove(id: id, in: &transaction)
                    continue
                }
                if let newID = changed[idField], newID != id {
                    throw DataStoreError(
                        .invalidValue, "the transform changes the id of \(name)/\(id) to \(newID); ids cannot change")
                }
                if changed != document { try write(try prepare(changed, id: id), mode: .upsert, in: &transaction) }
            }
            after = last.key
        }
    }

    /// Up to `limit` records after the record key `after` (from the first when `nil`), decoded.
    func recordChunk(after: [UInt8]?, limit: Int, in transaction: inout WriteTransaction) throws
        -> [(key: [UInt8], document: Document)]
    {
        var batch: [(key: [UInt8], document: Document)] = []
        try transaction.walk(records, from: after) { key, value in
            if let after, key.elementsEqual(after) { return true }
            batch.append((Array(key), try decodeDocument(value)))
            return batch.count < limit
        }
        return batch
    }
}
