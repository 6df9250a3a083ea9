import DataStoreCore

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

    /// ``refreshIndexesIfOld(of:)`` on the store's reader threads, for an asynchronous read.
    func refreshIndexesIfOld(of layout: TableLayout) async {
        guard layout.claimIndexListCheck(olderThan: indexListMaxAge) else { return }
        _ = try? await readers.run { [self] in try refreshIndexes(of: layout) }
    }

    /// Whether `error` is the server's answer to a statement naming a column or table that is
    /// not there.
    static func namesGoneIndex(_ error: DataStoreError) -> Bool {
        (error.underlying as? PostgresError)?.namesMissingColumnOrTable == true
    }

    /// Takes the index list `_meta` holds now into `layout` (nothing when the collection is gone).
    func refreshIndexes(of layout: TableLayout) throws {
        let encoded = try pool.read("reading the indexes of \(layout.name)") { connection in
            try SchemaCatalog.storedIndexes(of: layout.name, on: connection)
        }
        if let encoded { _ = layout.adopt(stored: encoded) }
    }
}
