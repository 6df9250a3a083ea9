/// The bound on one document's size, the same on every store: the encoded record (docs/encoding.md)
/// is measured, before anything is queued, so a document too large for one backend is too large
/// for all of them.
package enum DocumentSize {
    /// The default bound: 64 MiB of encoded record.
    package static let defaultLimit = 64 << 20

    /// Throws unless a record of `bytes` fits within `limit`.
    /// - Parameters:
    ///   - option: The option that sets the limit, named in the message.
    /// - Throws: ``DataStoreError`` `.tooLarge` naming the collection, the id, the size and the limit.
    package static func check(
        _ bytes: Int, limit: Int, id: Value, collection: String, option: String
    ) throws(DataStoreError) {
        guard bytes > limit else { return }
        throw DataStoreError(
            .tooLarge,
            "the object \(id) of \(collection) is \(bytes) bytes encoded, over the limit of \(limit) bytes (\(option))")
    }
}
