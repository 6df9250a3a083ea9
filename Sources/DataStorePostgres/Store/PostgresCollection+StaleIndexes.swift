import DataStoreCore

extension PostgresCollection {
    /// Runs `read`, after taking the collection's index list as stored now when the handle's is
    /// older than ``PostgresStore/Options/indexListMaxAge``, and once more when it met the column
    /// or side table of an index this handle knew that is gone (dropped through another handle,
    /// store or process): the handle then plans over the indexes that exist.
    func refreshingIndexes<R>(_ read: () throws -> R) throws -> R {
        try store.refreshingIndexes(of: layout, read)
    }

    /// ``refreshingIndexes(_:)`` of an asynchronous read.
    func refreshingIndexes<R>(_ read: () async throws -> R) async throws -> R {
        store.refreshIndexesIfOld(of: layout)
        do { return try await read() } catch let error as DataStoreError where PostgresStore.namesGoneIndex(error) {
            try store.refreshIndexes(of: layout)
            return try await read()
        }
    }
}

extension PostgresStore {
    /// ``PostgresCollection/refreshingIndexes(_:)`` for any reader of `layout`, such as a context.
    func refreshingIndexes<R>(of layout: TableLayout, _ read: () throws -> R) throws -> R {
        refreshIndexesIfOld(of: layout)
        do { return try read() } catch let error as DataStoreError where Self.namesGoneIndex(error) {
            try refreshIndexes(of: layout)
            return try read()
        }
    }

    /// Takes `_meta`'s index list into `layout` when `layout` last checked it longer than
    /// ``Options/indexListMaxAge`` ago, so that its reads use indexes declared elsewhere since.
    func refreshIndexesIfOld(of layout: TableLayout) {
        guard layout.claimIndexListCheck(olderThan: indexListMaxAge) else { return }
        // Reads are right over any list (a dropped index's is taken when met): one that cannot
        // be read now is read again later, and the read itself reports a server gone away.
        try? refreshIndexes(of: layout)
    }

    /// Whether `error` is the server's answer to a statement naming a column or table that is
    /// not there.
    static func namesGoneIndex(_ error: DataStoreError) -> Bool {
        guard let underlying = error.underlying as? PostgresError else { return false }
        return underlying.namesMissingRelation
    }

    /// Takes the index list `_meta` holds now into `layout` (nothing when the collection is gone).
    func refreshIndexes(of layout: TableLayout) throws {
        let encoded = try pool.read("reading the indexes of \(layout.name)") { connection in
            try SchemaCatalog.storedIndexes(of: layout.name, on: connection)
        }
        if let encoded { _ = layout.adopt(stored: encoded) }
    }
}

extension PostgresError {
    /// Whether the statement named a column or table that is not there.
    var namesMissingRelation: Bool { code == .undefinedColumn || code == .undefinedTable }
}
