package import DataStoreCore

extension DocumentStore {
    /// The change feed after the position the consumer `consumer` saved, or from the oldest commit
    /// kept when it saved none (``feedPosition(of:)``).
    /// - Throws: ``/DataStoreCore/DataStoreError`` `.changesTrimmed` when the feed no longer holds the
    ///   commits after the saved position; `.invalidValue` for a bad name.
    public func changes(for consumer: String) throws -> ChangeFeed {
        try changes(after: feedPosition(of: consumer))
    }
}

/// The rules of a feed consumer's name, alike on every store: 1 to 200 bytes of UTF-8, no NUL.
package enum FeedConsumerName {
    package static func check(_ name: String) throws(DataStoreError) {
        let bytes = name.utf8.count
        if bytes == 0 || bytes > 200 || name.utf8.contains(0) {
            throw DataStoreError(
                .invalidValue,
                "a feed consumer's name must be 1 to 200 bytes of UTF-8 without NUL; \(String(reflecting: name)) is not"
            )
        }
    }
}
