import DataStoreCore

extension PostgresStore {
    /// Runs `read` of `layout`'s collection, after taking the index list as stored now when the
    /// layout's is older than ``Options/indexListMaxAge``, and once more when it met the column or
    /// side table of an index the layout knew that is gone (dropped through another handle, store
    /// or process): the read then plans over the indexes that exist.
    func refreshingIndexes<R>(of layout: TableLayout, _ read: () throws -> R) throws -> R {
        refreshIndexesIfOld(of: layout)
        do { return try read() } catch let error as DataStoreError where Self.namesGoneIndex(error) {
            try refreshIndexes(of: layout)
            return try read()
        }
    }

    /// ``refreshingIndexes(of:_:)-(_,()->R)`` of an asynchronous read, whose index lists are read
    /// on the store's reader threads.
    func refreshingIndexes<R>(of layout: TableLayout, _ read: () async throws -> R) async throws -> R {
        await refreshIndexesIfOld(of: layout)
        do { return try await read() } catch let error as DataStoreError where Self.namesGoneIndex(error) {
            try await readers.run { [self] in try refreshIndexes(of: layout) }
            return try await read()
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
