import DataStoreCore
import DataStoreEngine

/// A ``/DataStoreEngine/Migration`` run on the server, in the writer's transaction
/// (``PostgresWriter/recorded(_:)``): the schema lock and each changed collection's lock taken
/// alone, the steps in order — indexes built or dropped as a declaration does, documents
/// rewritten through the same row statements as a write — and the name recorded in
/// `_migrations`. The rewritten documents are reported for the change feed.
enum SchemaMigration {
    static let createMigrations = """
        CREATE TABLE IF NOT EXISTS _migrations (
            name text PRIMARY KEY,
            applied timestamptz NOT NULL DEFAULT now())
        """

    /// How many rows a transform reads and writes at a time.
    static let chunk = 512

    /// Runs `migration` on `connection`, inside a transaction the caller began; returns what its
    /// transforms changed (nothing when the migration was recorded already, by another process).
    /// - Throws: ``/DataStoreCore/DataStoreError`` `.notFound` naming a missing collection;
    ///   `.schemaMismatch` for an index added twice or dropped when absent; `.invalidValue` when
    ///   a transform changes an id; what a transform throws; the errors of writing its documents.
    static func apply(
        _ migration: Migration, on connection: Connection, ddl: TableDDL, clock: CommitClock, maxBytes: Int
    ) throws -> [CollectionChanges] {
        try connection.execute("SELECT pg_advisory_xact_lock($1)", [.int(SchemaCatalog.lockKey)])
        try connection.execute(SchemaCatalog.createMeta)
        try connection.execute("LOCK TABLE _meta IN SHARE ROW EXCLUSIVE MODE")
        try connection.execute(createMigrations)
        let recorded = try connection.execute("SELECT 1 FROM _migrations WHERE name = $1", [.text(migration.name)])
        if recorded.rowCount == 1 { return [] }
        var changes = BatchChanges()
        var locked = Set<Int>()
        for step in migration.steps {
            if case .createCollection(let name, let idField, _) = step {
                try create(name, idField: idField, ddl: ddl, on: connection)
            }
            guard let layout = try SchemaCatalog.load(step.collection, on: connection) else {
                throw DataStoreError(
                    .notFound,
                    "no collection \(step.collection) in the store; a migration creates one with "
                        + "createCollection(_:idField:indexes:) before its other steps")
            }
            if locked.insert(layout.tag).inserted {
                try connection.execute(
                    "SELECT pg_advisory_xact_lock($1::int4, $2::int4)",
                    [.int(SchemaCatalog.collectionLockSpace), .int(Int64(layout.tag))])
            }
            switch step {
            case .addIndex(_, let definition):
                guard !layout.indexes.contains(where: { $0.definition.name == definition.name }) else {
                    throw DataStoreError(
                        .schemaMismatch, "collection \(layout.name) already has an index \(definition.name)")
                }
                try add([definition], to: layout, ddl: ddl, on: connection)
            case .dropIndex(_, let name):
                guard layout.indexes.contains(where: { $0.definition.name == name }) else {
                    throw DataStoreError(.schemaMismatch, "collection \(layout.name) has no index \(name)")
                }
                _ = try SchemaCatalog.reconcile(
                    layout, declared: [], mode: .dropping(name), chunk: 1_000, ddl: ddl, on: connection)
            case .transform(_, let transform):
                try rewrite(layout, transform, on: connection, clock: clock, maxBytes: maxBytes, into: &changes)
            case .createCollection(_, _, let indexes):
                var missing: [IndexDefinition] = []
                for definition in indexes {
                    guard let existing = layout.indexes.first(where: { $0.definition.name == definition.name }) else {
                        missing.append(definition)
                        continue
                    }
                    guard existing.definition == definition else {
                        throw DataStoreError(
                            .schemaMismatch,
                            "collection \(layout.name) already has an index \(definition.name) "
                                + "(\(existing.definition)), not \(definition)")
                    }
                }
                if !missing.isEmpty { try add(missing, to: layout, ddl: ddl, on: connection) }
            }
        }
        try connection.execute("INSERT INTO _migrations (name) VALUES ($1)", [.text(migration.name)])
        return changes.collections
    }

    /// Builds `definitions` on `layout`, every other index kept.
    private static func add(
        _ definitions: [IndexDefinition], to layout: TableLayout, ddl: TableDDL, on connection: Connection
    )
        throws
    {
        try IndexDefinition.validateDeclaration(
            of: layout.name, idField: layout.idField, indexes: layout.indexes.map(\.definition) + definitions)
        _ = try SchemaCatalog.reconcile(
            layout, declared: definitions, mode: .adding, chunk: 1_000, ddl: ddl, on: connection)
    }

    /// Records collection `name` and makes its table, unless it is stored, with the same id field.
    private static func create(_ name: String, idField: String, ddl: TableDDL, on connection: Connection) throws {
        try StoreNames.checkCollection(name)
        try StoreNames.checkIDField(idField, collection: name)
        if let stored = try SchemaCatalog.load(name, on: connection) {
            guard stored.idField == idField else {
                throw DataStoreError(
                    .schemaMismatch, "collection \(name) is stored with id field \(stored.idField), not \(idField)")
            }
            return
        }
        _ = try SchemaCatalog.create(name, idField: idField, ddl: ddl, on: connection)
    }

    /// Replaces every row of `layout` by what `transform` returns for its document, or deletes it
    /// for `nil`, a chunk at a time; unchanged documents are not written.
    private static func rewrite(
        _ layout: TableLayout, _ transform: (Document) throws -> Document?, on connection: Connection,
        clock: CommitClock, maxBytes: Int, into changes: inout BatchChanges
    ) throws {
        var after: [UInt8] = []
        while true {
            let rows = try connection.execute(
                "SELECT id, record FROM \(layout.table) WHERE id > $1 ORDER BY id LIMIT $2 FOR UPDATE",
                [.bytes(after), .int(Int64(chunk))])
            if rows.rowCount == 0 { return }
            var operations: [RowStatements] = []
            for row in 0..<rows.rowCount {
                guard let key = rows.bytes(row, 0) else { continue }
                after = key
                let document: Document
                do { document = try RecordCodec.decode(rows.unsafeBytes(row, 1)) } catch {
                    throw DataStoreError(.codec, "a record of \(layout.name) cannot be decoded", underlying: error)
                }
                let id = document[layout.idField] ?? .null
                guard let changed = try transform(document) else {
                    operations.append(try RowStatements(.remove(id: id, key: key, layout, version: nil), clock: clock))
                    continue
                }
                if let newID = changed[layout.idField], newID != id {
                    throw DataStoreError(
                        .invalidValue,
                        "the transform changes the id of \(layout.name)/\(id) to \(newID); ids cannot change")
                }
                guard changed != document else { continue }
                let written = try PreparedRow(changed, id: id, layout: layout, maxBytes: maxBytes)
                operations.append(try RowStatements(.upsert(written, layout, version: nil), clock: clock))
            }
            try write(operations, on: connection, into: &changes)
        }
    }

    /// Runs the statements of `operations` in one round trip and adds what they did to `changes`.
    private static func write(
        _ operations: [RowStatements], on connection: Connection, into changes: inout BatchChanges
    ) throws {
        guard !operations.isEmpty else { return }
        var statements: [(sql: String, parameters: [SQLParameter])] = []
        var firsts: [Int] = []
        for operation in operations {
            firsts.append(statements.count)
            statements += operation.statements
        }
        let outcomes = try connection.pipeline(statements)
        var found: [RowOutcome] = []
        for (operation, first) in zip(operations, firsts) {
            for outcome in outcomes[first..<(first + operation.statements.count)] {
                if case .failed(let error) = outcome { throw operation.named(error) ?? error }
            }
            guard case .done(let result) = outcomes[first] else {
                throw PostgresError(.connectionFailure, "a migration's write was not answered")
            }
            if let failure = operation.check(result) { throw failure }
            found.append(operation.outcome(result))
        }
        changes.add(operations, found)
    }
}
