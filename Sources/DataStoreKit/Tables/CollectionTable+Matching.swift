import DataStoreCore

extension CollectionTable {
    /// Whether the record `body` under `idKey` passes every predicate. A record that cannot be
    /// read is named by its id.
    ///
    /// - Throws: ``/DataStoreCore/DataStoreError/Code/codec`` naming the record, wrapping the `CodecError` that
    ///   names the field.
    func recordMatches(_ predicates: [RecordPredicate], _ body: UnsafeRawBufferPointer, idKey: UnsafeRawBufferPointer)
        throws -> Bool
    {
        do {
            return try RecordPredicate.all(predicates, match: body)
        } catch {
            throw unreadable(idKey, error)
        }
    }

    /// Whether the record `body` under `idKey` passes every predicate, lent in place.
    ///
    /// - Throws: See ``recordMatches(_:_:idKey:)-([RecordPredicate],_,_)``.
    func recordMatches(
        _ predicates: UnsafeBufferPointer<RecordPredicate>, _ body: UnsafeRawBufferPointer,
        idKey: UnsafeRawBufferPointer
    ) throws -> Bool {
        do {
            return try RecordPredicate.all(predicates, match: body)
        } catch {
            throw unreadable(idKey, error)
        }
    }
}
