import DataStoreCore
import DataStoreEngine

/// The SQL of one ``RowOperation``: table and column names come from numbers (``TableLayout``),
/// every value is a bound parameter.
struct RowStatements {
    /// The statements, in order; the first one's result answers the operation.
    var statements: [(sql: String, parameters: [SQLParameter])] = []
    /// The operation they carry out.
    let operation: RowOperation

    /// The version written: the server's transaction id, the commit identity.
    private let writtenVersion: String

    init(_ operation: RowOperation, clock: CommitClock) throws(DataStoreError) {
        self.operation = operation
        self.writtenVersion = clock.transactionID
        switch operation {
        case .insert(let row, let layout, _):
            try write(row, layout, conflict: "")
        case .upsert(let row, let layout, nil):
            // The subquery sees the table as it was before the statement: whether the id was stored.
            try write(
                row, layout,
                conflict: "ON CONFLICT (id) DO UPDATE SET " + Self.assignments(layout)
                    + " RETURNING EXISTS (SELECT 1 FROM \(layout.table) AS b WHERE b.id = $1)")
        case .upsert(let row, let layout, let version?):
            let (columns, parameters) = try Self.columns(row, layout)
            let sets = zip(columns, 1...).dropFirst().map { "\($0) = $\($1)" }
            statements.append(
                (
                    "UPDATE \(layout.table) SET \(sets.joined(separator: ", ")), version = \(writtenVersion) "
                        + "WHERE id = $1 AND version = $\(parameters.count + 1) RETURNING true",
                    parameters + [.int(Int64(version))]
                ))
            sideRows(row, layout)
        case .remove(_, let key, let layout, let version):
            delete(key, layout, version: version)
        case .discard(_, let key, let layout):
            delete(key, layout, version: nil)
        case .check(_, let key, let layout, let version?):
            // FOR SHARE: the row keeps this version until the batch commits.
            statements.append(
                (
                    "SELECT 1 FROM \(layout.table) WHERE id = $1 AND version = $2 FOR SHARE",
                    [.bytes(key), .int(Int64(version))]
                ))
        case .check(_, let key, let layout, nil):
            statements.append(("SELECT 1 FROM \(layout.table) WHERE id = $1", [.bytes(key)]))
        }
    }

    private mutating func delete(_ key: [UInt8], _ layout: TableLayout, version: Int?) {
        var parameters: [SQLParameter] = [.bytes(key)]
        var condition = "id = $1"
        if let version {
            parameters.append(.int(Int64(version)))
            condition += " AND version = $2"
        }
        statements.append(("DELETE FROM \(layout.table) WHERE \(condition) RETURNING record", parameters))
        for index in layout.indexes where index.definition.multiValue {
            statements.append(("DELETE FROM \(layout.sideTable(index)) WHERE id = $1", [.bytes(key)]))
        }
    }

    private mutating func write(_ row: PreparedRow, _ layout: TableLayout, conflict: String) throws(DataStoreError) {
        let (columns, parameters) = try Self.columns(row, layout)
        let values = (1...parameters.count).map { "$\($0)" } + [writtenVersion]
        statements.append(
            (
                "INSERT INTO \(layout.table) AS t (\(columns.joined(separator: ", ")), version) "
                    + "VALUES (\(values.joined(separator: ", "))) \(conflict)",
                parameters
            ))
        sideRows(row, layout)
    }

    /// The table's columns and their values for `row`.
    private static func columns(_ row: PreparedRow, _ layout: TableLayout) throws(DataStoreError) -> (
        [String], [SQLParameter]
    ) {
        var columns = ["id", "record", "doc"]
        var parameters: [SQLParameter] = [.bytes(row.idKey), .bytes(row.body), row.json.map { .text($0) } ?? .null]
        for index in layout.columnIndexes {
            let entry = try entries(row, index, layout).first
            columns += [index.keyColumn, index.uniqueColumn]
            parameters += [entry.map { .bytes($0.entry.key) } ?? .null, entry?.unique.map { .bytes($0) } ?? .null]
        }
        return (columns, parameters)
    }

    /// `SET` clauses taking every column from the proposed row.
    private static func assignments(_ layout: TableLayout) -> String {
        let columns = ["record", "doc"] + layout.columnIndexes.flatMap { [$0.keyColumn, $0.uniqueColumn] }
        return (columns.map { "\($0) = EXCLUDED.\($0)" } + ["version = EXCLUDED.version"]).joined(separator: ", ")
    }

    /// Replaces the row's entries in each multi-value side table, one statement per table.
    private mutating func sideRows(_ row: PreparedRow, _ layout: TableLayout) {
        for index in layout.indexes where index.definition.multiValue {
            let entries = (try? Self.entries(row, index, layout)) ?? []
            statements.append(("DELETE FROM \(layout.sideTable(index)) WHERE id = $1", [.bytes(row.idKey)]))
            statements.append(
                (
                    "INSERT INTO \(layout.sideTable(index)) (key, id, u) "
                        + "SELECT k, $1, u FROM unnest($2::bytea[], $3::bytea[]) AS e(k, u)",
                    [
                        .bytes(row.idKey), .byteaArray(entries.map { $0.entry.key }),
                        .byteaArray(entries.map { $0.unique })
                    ]
                ))
        }
    }

    /// The entries of `index`, computed now when the row was prepared before the index existed.
    private static func entries(_ row: PreparedRow, _ index: StoredIndex, _ layout: TableLayout) throws(DataStoreError)
        -> [(entry: IndexEntry, unique: [UInt8]?)]
    {
        if let entries = row.entries[index.column] { return entries }
        return try PreparedRow(row.document, id: row.id, layout: layout).entries[index.column] ?? []
    }

    /// The error for an operation whose first statement found nothing to change, or `nil`.
    func check(_ result: QueryResult) -> DataStoreError? {
        switch operation {
        case .upsert(let row, let layout, _?) where result.rowCount == 0:
            return DataStoreError(.conflict, "\(layout.name)/\(row.id) changed since it was read")
        case .remove(let id, _, let layout, let version) where result.rowCount == 0:
            if version != nil { return DataStoreError(.conflict, "\(layout.name)/\(id) changed since it was read") }
            return DataStoreError(.notFound, "no object with id \(id) in \(layout.name)")
        case .check(let id, _, let layout, let version) where (result.rowCount == 0) == (version != nil):
            return DataStoreError(.conflict, "\(layout.name)/\(id) changed since it was read")
        default:
            return nil
        }
    }

    /// What the operation found: the record a removal removed.
    func outcome(_ result: QueryResult) -> RowOutcome {
        switch operation {
        case .upsert(_, _, nil):
            let existed = result.rowCount > 0 && result.bool(0, 0) == true
            return RowOutcome(removedRecord: nil, replaced: existed)
        case .remove, .discard:
            guard result.rowCount > 0 else { break }
            return RowOutcome(removedRecord: result.bytes(0, 0), replaced: true)
        default: break
        }
        return RowOutcome(removedRecord: nil, replaced: false)
    }

    /// The store's named error for a constraint the server enforced (SQLSTATE 23505): the id's
    /// primary key, or a unique index; or for a document past what the server holds (54000).
    func named(_ error: PostgresError) -> DataStoreError? {
        if error.code == .programLimitExceeded, let row = operation.row {
            return DataStoreError(
                .tooLarge, "the object \(row.id) of \(operation.layout.name) is larger than PostgreSQL holds",
                underlying: error)
        }
        guard error.code == .uniqueViolation, let constraint = error.constraint else { return nil }
        let layout = operation.layout
        let row: PreparedRow
        switch operation {
        case .insert(let inserted, _, let expectingAbsent):
            if constraint == "\(layout.table)_pkey" {
                return expectingAbsent
                    ? DataStoreError(.conflict, "\(layout.name)/\(inserted.id) changed since it was read (now stored)")
                    : DataStoreError(.duplicateID, "an object with id \(inserted.id) already exists in \(layout.name)")
            }
            row = inserted
        case .upsert(let written, _, _): row = written
        case .remove, .discard, .check: return nil
        }
        guard let index = layout.indexes.first(where: { layout.uniqueConstraint($0) == constraint }) else { return nil }
        return DataStoreError(
            .uniqueViolation,
            "unique index \(index.definition.name) on \(layout.name) already has (\(row.shownValues(index))) "
                + "for another object", underlying: error)
    }
}
