import DataStoreCore
import DataStoreEngine

extension SchemaCatalog {
    /// Opens `name` as declared: creates its table when new, and reconciles its stored indexes
    /// with `declared` by the LMDB store's rules (``IndexReconciliation``): a new index is built
    /// from the existing rows in chunks of `chunk`, a redefined one rebuilt, and one the
    /// declaration leaves out kept unless `mode` says to drop it; tables and b-trees are made as
    /// `ddl` declares them. One transaction, under the schema lock.
    /// - Throws: ``/DataStoreCore/DataStoreError`` `.schemaMismatch` for a bad declaration or another id field,
    ///   `.uniqueViolation` when existing rows break a new unique index, `.invalidValue`.
    static func declare(
        _ name: String, idField: String, indexes declared: [IndexDefinition], mode: ReconciliationMode, chunk: Int,
        ddl: TableDDL, on connection: Connection
    ) throws -> TableLayout {
        try IndexDefinition.validateDeclaration(of: name, idField: idField, indexes: declared)
        if let covering = declared.first(where: { $0.covering != nil }) {
            throw DataStoreError(
                .unsupported,
                "index \(covering.name) on \(name) is declared covering, which keeps a copy of each document in the "
                    + "index (an LMDB store's way to answer from the index alone); a PostgreSQL store keeps none: "
                    + "declare it without covering")
        }
        try connection.execute("BEGIN")
        do {
            try connection.execute("SELECT pg_advisory_xact_lock($1)", [.int(lockKey)])
            try connection.execute(createMeta)
            // Before any table changes: a reader of `_meta` and the tables (`check()`) waits for
            // the whole declaration, and this for it, never each for the other's second lock.
            try connection.execute("LOCK TABLE _meta IN SHARE ROW EXCLUSIVE MODE")
            let layout = try load(name, on: connection) ?? create(name, idField: idField, ddl: ddl, on: connection)
            try connection.execute(
                "SELECT pg_advisory_xact_lock($1::int4, $2::int4)", [.int(collectionLockSpace), .int(Int64(layout.tag))]
            )
            guard layout.idField == idField else {
                throw DataStoreError(
                    .schemaMismatch,
                    "collection \(name) is stored with id field \(layout.idField), not \(idField)")
            }
            let indexes = try reconcile(layout, declared: declared, mode: mode, chunk: chunk, ddl: ddl, on: connection)
            try connection.execute("COMMIT")
            layout.replaceIndexes(indexes)
            return layout
        } catch {
            _ = try? connection.execute("ROLLBACK")
            if let error = error as? PostgresError {
                if error.code == .uniqueViolation {
                    throw DataStoreError(
                        .uniqueViolation, "existing objects of \(name) share values of a unique index being declared",
                        underlying: error)
                }
                throw DataStoreError.postgres(error, "declaring collection \(name)")
            }
            throw error
        }
    }

    /// Brings `layout`'s stored indexes to `declared` by the rules of `mode` — drops, builds from
    /// the rows in chunks of `chunk`, declared flags — and records the list in `_meta`, inside the
    /// caller's transaction, which holds the schema lock and the collection's. Returns the list.
    static func reconcile(
        _ layout: TableLayout, declared: [IndexDefinition], mode: ReconciliationMode, chunk: Int, ddl: TableDDL,
        on connection: Connection
    ) throws -> [StoredIndex] {
        let plan = IndexReconciliation(current: layout.indexes, declared: declared, mode: mode)
        try plan.checkRedefinitions(of: layout.name)
        var indexes = layout.indexes.filter { index in !plan.drop.contains { $0.column == index.column } }
        for dropped in plan.drop { try drop(dropped, of: layout, on: connection) }
        for (index, declared) in plan.declaredChanges {
            if let position = indexes.firstIndex(where: { $0.definition.name == index }) {
                indexes[position].declared = declared
            }
        }
        for definition in plan.build {
            let column = try nextColumn(after: (layout.indexes + indexes).map(\.column).max() ?? 0, on: connection)
            let index = StoredIndex(definition: definition, column: column, declared: true)
            try build(index, of: layout, chunk: chunk, ddl: ddl, on: connection)
            indexes.append(index)
        }
        if !plan.changesNothing { try save(layout, indexes: indexes, on: connection) }
        return indexes
    }

    /// The number for a new index's columns: above `highest` and above every number given before
    /// in this database, so that a number is never used twice, even after its index was dropped —
    /// a handle that still knows the dropped index then finds its columns gone, rather than
    /// reading another index's keys under its old name.
    private static func nextColumn(after highest: Int, on connection: Connection) throws -> Int {
        try connection.execute("CREATE SEQUENCE IF NOT EXISTS dsk_index_columns")
        let result = try connection.execute(
            "SELECT setval('dsk_index_columns', GREATEST(nextval('dsk_index_columns'), $1))",
            [.int(Int64(highest + 1))])
        guard let column = result.int(0, 0) else {
            throw PostgresError(.connectionFailure, "the next index column number was not answered")
        }
        return Int(column)
    }

    /// Drops an index's columns or side table, data and all.
    private static func drop(_ index: StoredIndex, of layout: TableLayout, on connection: Connection) throws {
        if index.definition.multiValue {
            try connection.execute("DROP TABLE IF EXISTS \(layout.sideTable(index))")
        } else {
            try connection.execute(
                "ALTER TABLE \(layout.table) DROP COLUMN IF EXISTS \(index.keyColumn), "
                    + "DROP COLUMN IF EXISTS \(index.uniqueColumn)")
        }
    }

    /// Adds an index's columns (or side table), fills them from the rows in chunks, then makes
    /// its b-tree and, when unique, its unique index over the uncut values.
    private static func build(
        _ index: StoredIndex, of layout: TableLayout, chunk: Int, ddl: TableDDL, on connection: Connection
    ) throws {
        let side = layout.sideTable(index)
        if index.definition.multiValue {
            for statement in ddl.sideTable(side) { try connection.execute(statement) }
        } else {
            try connection.execute(
                "ALTER TABLE \(layout.table) ADD COLUMN \(index.keyColumn) bytea, ADD COLUMN \(index.uniqueColumn) bytea"
            )
        }
        var last: [UInt8] = []
        while true {
            let rows = try connection.execute(
                "SELECT id, record FROM \(layout.table) WHERE id > $1 ORDER BY id LIMIT $2",
                [.bytes(last), .int(Int64(max(chunk, 1)))])
            if rows.rowCount == 0 { break }
            var ids: [[UInt8]?] = [], keys: [[UInt8]?] = [], uniques: [[UInt8]?] = []
            for row in 0..<rows.rowCount {
                guard let id = rows.bytes(row, 0), let record = rows.bytes(row, 1) else { continue }
                let document: Document
                do { document = try RecordCodec.decode(record) } catch {
                    throw DataStoreError(.codec, "a record of \(layout.name) cannot be decoded", underlying: error)
                }
                for (entry, unique) in try index.rows(for: document, idKey: id, collection: layout.name) {
                    ids.append(id)
                    keys.append(entry.key)
                    uniques.append(unique)
                }
                last = id
            }
            try connection.execute(
                index.definition.multiValue
                    ? "INSERT INTO \(side) (id, key, u) SELECT * FROM unnest($1::bytea[], $2::bytea[], $3::bytea[])"
                    : "UPDATE \(layout.table) t SET \(index.keyColumn) = e.k, \(index.uniqueColumn) = e.u "
                        + "FROM unnest($1::bytea[], $2::bytea[], $3::bytea[]) AS e(id, k, u) WHERE t.id = e.id",
                [.byteaArray(ids), .byteaArray(keys), .byteaArray(uniques)])
        }
        if index.definition.multiValue {
            if index.definition.unique {
                try connection.execute("CREATE UNIQUE INDEX \(layout.uniqueConstraint(index)) ON \(side) (sha256(u))")
            }
        } else {
            try connection.execute(ddl.keyIndex(index, of: layout))
            if index.definition.unique {
                try connection.execute(
                    "CREATE UNIQUE INDEX \(layout.uniqueConstraint(index)) ON \(layout.table) "
                        + "(sha256(\(index.uniqueColumn)))")
            }
        }
    }
}
