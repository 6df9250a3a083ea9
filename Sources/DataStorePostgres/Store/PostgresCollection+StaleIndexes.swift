import DataStoreCore

extension PostgresCollection {
    /// Runs `read`, after taking the collection's index list as stored now when the handle's is
    /// older than ``PostgresStore/Options/indexListMaxAge``, and once more when it met the column
    /// or side table of an index this handle knew that is gone (dropped through another handle,
    /// store or process): the handle then plans over the indexes that exist.
    func refreshingIndexes<R>(_ read: () throws -> R) throws -> R {
        try store.refreshingIndexes(of: layout, read)
    }

    /// ``refreshingIndexes(_:)`` of an asynchronous read, whose index lists are read on the
    /// store's reader threads.
    func refreshingIndexes<R>(_ read: () async throws -> R) async throws -> R {
        let store = store, layout = layout
        await store.refreshIndexesIfOld(of: layout)
        do { return try await read() } catch let error as DataStoreError where PostgresStore.namesGoneIndex(error) {
            try await store.readers.run { try store.refreshIndexes(of: layout) }
            return try await read()
        }
    }
}
