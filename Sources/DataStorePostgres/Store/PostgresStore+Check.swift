public import DataStoreKit

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
        try pool.read("checking the store") { connection in
            try connection.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
            var problems: [IntegrityProblem] = []
            for name in names {
                guard let layout = try SchemaCatalog.load(name, on: connection) else {
                    throw DataStoreError(.notFound, "no collection \(name) on \(url.isEmpty ? "the server" : url)")
                }
                var check = TableCheck(layout: layout)
                try check.run(on: connection)
                problems += check.problems
            }
            try connection.execute("COMMIT")
            return problems
        }
    }
}
