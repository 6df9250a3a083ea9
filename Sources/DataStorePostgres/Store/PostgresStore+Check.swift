public import DataStoreEngine

extension PostgresStore {
    /// Verifies every collection over one snapshot: every record decodes and sits under its id's
    /// key, every index holds exactly the keys its records call for (recomputed as a write would
    /// compute them), no side-table entry is stray, and every `jsonb` rendering matches its record.
    /// - Throws: ``/DataStoreCore/DataStoreError`` `.network` when the server cannot be reached.
    /// - Complexity: O(rows × indexes).
    public func check() throws -> [IntegrityProblem] {
        try check(collections: collectionNames())
    }

    /// ``check()`` of the collections named.
    /// - Throws: ``/DataStoreCore/DataStoreError`` `.notFound` naming a collection that is not stored.
    public func check(collections names: [String]) throws -> [IntegrityProblem] {
        try check(collections: names, batchBytes: 8 << 20).problems
    }

    /// ``check(collections:)``, reading records in batches of at most `batchBytes` (one larger
    /// record alone); also the most record bytes one batch held.
    func check(collections names: [String], batchBytes: Int) throws -> (
        problems: [IntegrityProblem], largestBatchBytes: Int
    ) {
        for name in names { try StoreNames.checkCollection(name) }
        return try readSchemaAndTables("checking the store") { connection in
            var problems: [IntegrityProblem] = []
            var largest = 0
            for name in names {
                guard let layout = try SchemaCatalog.load(name, on: connection) else {
                    throw DataStoreError(.notFound, "no collection \(name) on \(url.isEmpty ? "the server" : url)")
                }
                var check = TableCheck(layout: layout, batchBytes: batchBytes)
                try check.run(on: connection)
                problems += check.problems
                largest = max(largest, check.largestBatchBytes)
            }
            return (problems, largest)
        }
    }

    /// Runs `body` in one `REPEATABLE READ READ ONLY` transaction that reads `_meta` and the tables
    /// it names, with `_meta` locked against declarations from before the snapshot is taken: the
    /// catalog is not kept with the snapshot, so an index dropped by a declaration committing
    /// meanwhile would be gone from its table while `_meta` still named it. (A declaration locks
    /// `_meta` before it changes any table.) On an engine without `LOCK TABLE` it reads unlocked.
    func readSchemaAndTables<R>(_ what: @autoclosure () -> String, _ body: (Connection) throws -> R) throws -> R {
        try pool.read(what()) { connection in
            try connection.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
            // `LOCK TABLE` takes no snapshot: the first query after it does.
            try connection.execute("SAVEPOINT schema")
            do {
                try connection.execute("LOCK TABLE _meta IN SHARE MODE")
                try connection.execute("RELEASE SAVEPOINT schema")
            } catch {
                try connection.execute("ROLLBACK TO SAVEPOINT schema")
            }
            let result = try body(connection)
            try connection.execute("COMMIT")
            return result
        }
    }
}
