import DataStoreCore

extension PostgresCollection {
    /// Runs `read`, and once more after taking the collection's index list as stored now when it
    /// met the column or side table of an index this handle knew that is gone (dropped through
    /// another handle, store or process): the handle then plans over the indexes that exist.
    func refreshingIndexes<R>(_ read: () throws -> R) throws -> R {
        do { return try read() } catch let error as DataStoreError where Self.namesGoneIndex(error) {
            try refreshIndexes()
            return try read()
        }
    }

    /// ``refreshingIndexes(_:)`` of an asynchronous read.
    func refreshingIndexes<R>(_ read: () async throws -> R) async throws -> R {
        do { return try await read() } catch let error as DataStoreError where Self.namesGoneIndex(error) {
            try refreshIndexes()
            return try await read()
        }
    }

    /// Whether `error` is the server's answer to a statement naming a column or table that is
    /// not there.
    private static func namesGoneIndex(_ error: DataStoreError) -> Bool {
        guard let underlying = error.underlying as? PostgresError else { return false }
        return underlying.code == .undefinedColumn || underlying.code == .undefinedTable
    }

    /// Takes the index list `_meta` holds now (nothing when the collection is gone).
    private func refreshIndexes() throws {
        let encoded = try store.pool.read("reading the indexes of \(name)") { connection in
            try SchemaCatalog.storedIndexes(of: name, on: connection)
        }
        if let encoded { _ = layout.adopt(stored: encoded) }
    }
}
