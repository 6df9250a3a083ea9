import DataStoreCore
import Glibc
import LMDB
import DataStoreEngine

extension CollectionTable {
    /// Indexes up to `limit` records after the record key `after` (from the first when `nil`),
    /// inside `transaction`. Returns the last record key indexed, or `nil` when no record was left.
    ///
    /// A unique index checks and puts each record's entries in turn, so that a record meets the
    /// entries of the records before it in the chunk. Any other index gathers the chunk's entries,
    /// sorts them and puts them in key order, appending when they all sort after the index's last
    /// key (LMDB then fills each page instead of splitting it).
    /// - Complexity: O(c log c) for a chunk of c entries, plus O(log n) per put.
    func indexChunk(_ index: IndexTable, after: [UInt8]?, limit: Int, in transaction: inout WriteTransaction) throws
        -> [UInt8]?
    {
        if index.definition.unique { return try uniqueIndexChunk(index, after: after, limit: limit, in: &transaction) }
        var entries: [(key: [UInt8], value: [UInt8])] = []
        entries.reserveCapacity(limit)
        var last: [UInt8]?
        var count = 0
        let fromBytes = Self.readsFieldsFromBytes(index.definition)
        try transaction.walk(records, from: after) { key, record in
            if let after, key.elementsEqual(after) { return true }
            let idKey = Array(key)
            let value = index.entryValue(record: index.definition.coversDocument ? Array(record) : [])
            for entry in try buildEntries(of: record, idKey: idKey, in: index, fromBytes: fromBytes) {
                entries.append((entry.key, value))
            }
            last = idKey
            count += 1
            return count < limit
        }
        entries.sort { Self.precedes($0.key, $1.key) }
        let append = try sortsAfterLastKey(entries.first?.key, of: index, in: transaction)
        for entry in entries {
            try transaction.put(entry.value, forKey: entry.key, in: index.database, options: append ? .append : [])
        }
        return last
    }

    /// Adds the entries every record in `transaction`'s snapshot has in `index` to `sorter`, with
    /// their values (the record itself for a covering index).
    /// - Complexity: O(n) records, each read once.
    func extractEntries(
        of index: IndexTable, in transaction: borrowing ReadTransaction, into sorter: IndexEntrySorter
    ) throws {
        let fromBytes = Self.readsFieldsFromBytes(index.definition)
        let definition = index.definition
        let noValue = UnsafeRawBufferPointer(start: nil, count: 0)
        // One key buffer for every record of a single-value index read from bytes.
        var scratch: [UInt8] = []
        scratch.reserveCapacity(KeyCodec.maxKeyBytes)
        try transaction.walk(records) { key, record in
            let value = definition.coversDocument ? record : noValue
            if fromBytes && !definition.multiValue {
                scratch.removeAll(keepingCapacity: true)
                let body = RecordVersion.body(record)
                if try definition.appendKey(forRecord: body, idKey: key, collection: name, to: &scratch) {
                    try sorter.add(key: scratch, value: value)
                    return true
                }
            }
            for entry in try buildEntries(of: record, idKey: Array(key), in: index, fromBytes: fromBytes) {
                try sorter.add(key: entry.key, value: value)
            }
            return true
        }
    }

    /// Appends the entries `range` of `run` (in key order, all after every key `index` holds) to
    /// `index`, through one cursor: LMDB then fills each page in turn instead of splitting pages,
    /// and finds the last page once. A key equal to the one before (two values of a record cut
    /// to the same key) is put once.
    /// - Complexity: O(1) amortised per entry.
    func appendEntries(
        _ run: EntryRun, _ range: Range<Int>, to index: IndexTable, in transaction: inout WriteTransaction
    ) throws {
        let last = try lastKey(of: index, in: transaction)
        do {
            try transaction.withCursor(on: index.database) { cursor in
                var previous: UnsafeRawBufferPointer?
                try run.forEach(in: range) { key, value in
                    if let previous, Self.sameBytes(previous, key) { return }
                    let first = previous == nil
                    previous = key
                    if first, let last, last.withUnsafeBytes({ Self.sameBytes($0, key) }) { return }
                    try cursor.put(value, forKey: key, options: .append)
                }
            }
        } catch let error as LMDBError where error.code == .keyExists {
            throw DataStoreError(
                .storage, "building index \(index.name) on \(name): an entry came out of key order", underlying: error)
        }
    }

    /// Whether `a` and `b` hold the same bytes.
    private static func sameBytes(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
        a.count == b.count && (a.isEmpty || memcmp(a.baseAddress!, b.baseAddress!, a.count) == 0)
    }

    /// The last key `index` holds, or `nil` when it is empty.
    private func lastKey(of index: IndexTable, in transaction: borrowing WriteTransaction) throws -> [UInt8]? {
        try transaction.withCursor(on: index.database) { cursor in
            try cursor.withMove(.last) { key, _ in Array(key) }
        }
    }

    /// ``indexChunk(_:after:limit:in:)`` for a unique index: each record's entries are checked
    /// against those already stored, then put.
    private func uniqueIndexChunk(
        _ index: IndexTable, after: [UInt8]?, limit: Int, in transaction: inout WriteTransaction
    ) throws -> [UInt8]? {
        var batch: [(key: [UInt8], record: [UInt8])] = []
        try transaction.walk(records, from: after) { key, value in
            if let after, key.elementsEqual(after) { return true }
            batch.append((Array(key), Array(value)))
            return batch.count < limit
        }
        for (key, record) in batch {
            let document = try record.withUnsafeBytes { try decodeDocument($0) }
            let value = index.entryValue(record: record)
            for entry in try index.entries(for: document, idKey: key, collection: name) {
                if !entry.hasMissingField {
                    try checkUnique(entry, of: document, in: index, idKey: key, transaction: transaction)
                }
                try transaction.put(value, forKey: entry.key, in: index.database)
            }
        }
        return batch.last?.key
    }

    /// The entries of the stored `record` in `index`: read from its bytes when `fromBytes` and
    /// every field was found there, else from its decoded document (which also finds a field
    /// whose name is spelled in another, canonically equivalent, form).
    func buildEntries(
        of record: UnsafeRawBufferPointer, idKey: [UInt8], in index: IndexTable, fromBytes: Bool
    ) throws -> [IndexEntry] {
        if fromBytes {
            let entries = try index.entries(forRecord: RecordVersion.body(record), idKey: idKey, collection: name)
            if !entries.contains(where: \.hasMissingField) { return entries }
        }
        return try index.entries(for: decodeDocument(record), idKey: idKey, collection: name)
    }

    /// Whether a build may read `definition`'s fields from record bytes: each is a top-level
    /// name in plain ASCII, which a record spells one way only.
    static func readsFieldsFromBytes(_ definition: IndexDefinition) -> Bool {
        definition.fields.allSatisfy { field in
            field.name.utf8.allSatisfy { $0 < 0x80 && $0 != UInt8(ascii: ".") && $0 != UInt8(ascii: "\\") }
        }
    }

    /// Whether `a` sorts before `b` byte by byte, as LMDB orders keys (`memcmp`, then the shorter
    /// first): the generic `lexicographicallyPrecedes` compared element by element.
    private static func precedes(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        a.withUnsafeBytes { a in
            b.withUnsafeBytes { b in
                let common = min(a.count, b.count)
                let order = common == 0 ? 0 : memcmp(a.baseAddress!, b.baseAddress!, common)
                return order == 0 ? a.count < b.count : order < 0
            }
        }
    }

    /// Whether `key` sorts after every key `index` holds (or the index is empty).
    private func sortsAfterLastKey(
        _ key: [UInt8]?, of index: IndexTable, in transaction: borrowing WriteTransaction
    ) throws -> Bool {
        guard let key else { return false }
        let last = try lastKey(of: index, in: transaction)
        return last.map { $0.lexicographicallyPrecedes(key) } ?? true
    }
}
