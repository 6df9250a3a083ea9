/// What one operation found: for a removal, the record it removed; for an upsert, whether a
/// row was there before.
struct RowOutcome: Sendable {
    var removedRecord: [UInt8]?
    var replaced: Bool
}
