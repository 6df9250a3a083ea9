import LMDB

extension CollectionTable {
    /// Lends `body` the stored record (version, then body) an index entry stands for: the entry's
    /// own copy when the index covers documents, else the record looked up under `idKey`, which
    /// adds one to `lookups`. Returns `nil` when there is no such record.
    func withRecord<R>(
        ofEntry value: UnsafeRawBufferPointer, idKey: UnsafeRawBufferPointer, in index: IndexTable,
        transaction: borrowing some ReadableTransaction & ~Copyable, lookups: inout Int,
        _ body: (UnsafeRawBufferPointer) throws -> R
    ) throws -> R? {
        if index.definition.coversDocument { return try body(value) }
        lookups += 1
        return try transaction.withValue(forKey: idKey, in: records, body)
    }

    /// Adds to ``recordLookups`` the records a scan looked up through index entries, once per
    /// scan rather than per record, so that the count costs reads nothing measurable.
    func noteRecordLookups(_ count: Int) {
        if count > 0 { recordLookupCount.add(count, ordering: .relaxed) }
    }

    /// How many records queries have looked up through index entries since the collection was
    /// opened in this process: what a covering index saves (it stays still while covering scans
    /// run).
    var recordLookups: Int { recordLookupCount.load(ordering: .relaxed) }
}
