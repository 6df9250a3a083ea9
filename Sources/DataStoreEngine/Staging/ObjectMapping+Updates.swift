package import DataStoreCore

extension ObjectMapping {
    /// The object an update of `collection`/`id` leaves, refused when the document no longer
    /// decodes as `Object` (a Codable field given the wrong type, a required field unset).
    /// - Throws: ``/DataStoreCore/DataStoreError`` `.invalidValue` naming the object.
    package func decodeUpdated(_ document: Document, id: Value, in collection: String) throws -> Object {
        do { return try decode(document) } catch {
            throw DataStoreError(
                .invalidValue,
                "the update of \(collection)/\(id) leaves a document that is no longer a \(Object.self): \(error)",
                underlying: error)
        }
    }
}
