import LMDB

extension StoreSchema {
    /// The `_meta` key of the schema generation: a count every transaction that writes a schema
    /// raises, so a process sees at a glance whether another one changed a schema.
    static let generationKey = Array("schema-generation".utf8)

    /// The schema generation `transaction` sees (0 in a store no schema was written in since
    /// generations exist).
    static func generation(
        in transaction: borrowing some ReadableTransaction & ~Copyable, meta: Database
    ) throws -> UInt64 {
        try transaction.withValue(forKey: generationKey, in: meta) { bytes in
            guard bytes.count == 8 else { return 0 }
            return bytes.reduce(0) { $0 << 8 | UInt64($1) }
        } ?? 0
    }

    /// Raises the schema generation inside `transaction` and returns the new one.
    @discardableResult
    static func raiseGeneration(in transaction: inout WriteTransaction, meta: Database) throws -> UInt64 {
        let next = try generation(in: transaction, meta: meta) &+ 1
        let bytes = (0..<8).map { UInt8(truncatingIfNeeded: next >> (56 - 8 * $0)) }
        try transaction.put(bytes, forKey: generationKey, in: meta)
        return next
    }
}
