import DataStoreCore
import DataStoreEngine

/// Verifies one collection's table against its records, a batch of rows at a time: every record
/// decodes and is stored under its id's key, every index column and side-table row holds exactly
/// the keys the record calls for (recomputed, as a write would), and the `jsonb` rendering matches.
///
/// Memory stays bounded whatever the documents' sizes: ids and record sizes are read a chunk at
/// a time, and records in batches of at most ``batchBytes`` (one record alone when it is larger),
/// so no statement carries more than that (the server's `jsonb` array holds at most 255 MiB).
struct TableCheck {
    let layout: TableLayout
    private(set) var problems: [IntegrityProblem] = []
    /// Ids read per statement.
    static let chunk = 500
    /// The most record bytes read (and JSON sent back) per statement, but for a record larger alone.
    let batchBytes: Int
    /// The most record bytes one batch held, for tests.
    private(set) var largestBatchBytes = 0

    init(layout: TableLayout, batchBytes: Int = 8 << 20) {
        self.layout = layout
        self.batchBytes = max(1, batchBytes)
    }

    /// Checks every row, over the snapshot of `connection`'s transaction.
    /// - Complexity: O(rows × indexes).
    mutating func run(on connection: Connection) throws {
        var last: [UInt8] = []
        while true {
            let sizes = try connection.execute(
                "SELECT id, octet_length(record)::int8 FROM \(layout.table) WHERE id > $1 ORDER BY id LIMIT \(Self.chunk)",
                [.bytes(last)])
            var batch: [[UInt8]] = []
            var bytes = 0
            for row in 0..<sizes.rowCount {
                let size = Int(sizes.int(row, 1) ?? 0)
                if !batch.isEmpty && bytes + size > batchBytes {
                    try check(batch, bytes: bytes, on: connection)
                    (batch, bytes) = ([], 0)
                }
                batch.append(sizes.bytes(row, 0) ?? [])
                bytes += size
            }
            if !batch.isEmpty { try check(batch, bytes: bytes, on: connection) }
            guard sizes.rowCount == Self.chunk, let next = sizes.bytes(sizes.rowCount - 1, 0) else { break }
            last = next
        }
        try checkStraySideRows(on: connection)
    }

    /// Checks the rows stored under `keys` (`bytes` of records in all).
    private mutating func check(_ keys: [[UInt8]], bytes: Int, on connection: Connection) throws {
        largestBatchBytes = max(largestBatchBytes, bytes)
        let columns = layout.columnIndexes
        let select = (["id", "record"] + columns.flatMap { [$0.keyColumn, $0.uniqueColumn] }).joined(separator: ", ")
        let rows = try connection.execute(
            "SELECT \(select) FROM \(layout.table) WHERE id = ANY($1::bytea[]) ORDER BY id", [.byteaArray(keys)])
        var prepared: [(key: [UInt8], row: PreparedRow)] = []
        for row in 0..<rows.rowCount {
            let key = rows.bytes(row, 0) ?? []
            if let made = checkRecord(rows, row, key: key) {
                checkColumns(rows, row, made, columns)
                prepared.append((key, made))
            }
        }
        try checkSideTables(prepared, on: connection)
        try checkJSON(prepared, on: connection)
    }

    private mutating func problem(_ index: String?, _ message: String) {
        problems.append(IntegrityProblem(collection: layout.name, index: index, message: message))
    }

    /// The record of `row` decoded and prepared as a write would be, or `nil` after noting why not.
    private mutating func checkRecord(_ rows: QueryResult, _ row: Int, key: [UInt8]) -> PreparedRow? {
        let shown = key.map { String($0, radix: 16) }.joined()
        let document: Document
        do { document = try RecordCodec.decode(rows.bytes(row, 1) ?? []) } catch {
            problem(nil, "the record stored under key \(shown) does not decode: \(error)")
            return nil
        }
        guard let id = document[layout.idField] else {
            problem(nil, "the record stored under key \(shown) has no id field \(layout.idField)")
            return nil
        }
        do {
            let made = try PreparedRow(document, id: id, layout: layout)
            if made.idKey != key { problem(nil, "the record \(id) is stored under key \(shown), not its id's key") }
            return made
        } catch {
            problem(nil, "the record \(id) cannot be written as stored: \(error)")
            return nil
        }
    }

    /// Compares each single-value index's columns with the key and value the record calls for.
    private mutating func checkColumns(_ rows: QueryResult, _ row: Int, _ made: PreparedRow, _ columns: [StoredIndex]) {
        for (position, index) in columns.enumerated() {
            let expected = made.entries[index.column]?.first
            let key = rows.bytes(row, 2 + 2 * position)
            let unique = rows.bytes(row, 3 + 2 * position)
            if key != expected?.entry.key {
                problem(
                    index.definition.name,
                    key == nil
                        ? "the record \(made.id) has no entry"
                        : "the entry of the record \(made.id) is not its record's key")
            } else if unique != expected?.unique {
                problem(index.definition.name, "the unique value of the record \(made.id) is not its record's")
            }
        }
    }

    /// Compares each multi-value index's side-table rows of these records with their entries.
    private mutating func checkSideTables(_ prepared: [(key: [UInt8], row: PreparedRow)], on connection: Connection)
        throws
    {
        guard !prepared.isEmpty else { return }
        for index in layout.indexes where index.definition.multiValue {
            let rows = try connection.execute(
                "SELECT id, key, u FROM \(layout.sideTable(index)) WHERE id = ANY($1::bytea[])",
                [.byteaArray(prepared.map(\.key))])
            var stored: [[UInt8]: Set<[[UInt8]?]>] = [:]
            for row in 0..<rows.rowCount {
                stored[rows.bytes(row, 0) ?? [], default: []].insert([rows.bytes(row, 1), rows.bytes(row, 2)])
            }
            for (key, made) in prepared {
                let expected = Set((made.entries[index.column] ?? []).map { [$0.entry.key, $0.unique] as [[UInt8]?] })
                if stored[key, default: []] != expected {
                    problem(index.definition.name, "the entries of the record \(made.id) are not its record's")
                }
            }
        }
    }

    /// Side-table rows whose record is gone.
    private mutating func checkStraySideRows(on connection: Connection) throws {
        for index in layout.indexes where index.definition.multiValue {
            let stray = try connection.execute(
                "SELECT count(*) FROM \(layout.sideTable(index)) s WHERE NOT EXISTS "
                    + "(SELECT 1 FROM \(layout.table) t WHERE t.id = s.id)")
            if let count = stray.int(0, 0), count > 0 {
                problem(index.definition.name, "\(count) entries belong to no record")
            }
        }
    }

    /// Compares the `doc` column with each record's JSON rendering, on the server (as `jsonb`).
    private mutating func checkJSON(_ prepared: [(key: [UInt8], row: PreparedRow)], on connection: Connection)
        throws
    {
        guard !prepared.isEmpty else { return }
        let expected = "[" + prepared.map { $0.row.json ?? "null" }.joined(separator: ",") + "]"
        let rows = try connection.execute(
            """
            SELECT i.n FROM unnest($1::bytea[]) WITH ORDINALITY AS i(id, n)
            JOIN jsonb_array_elements($2::jsonb) WITH ORDINALITY AS e(expected, m) ON i.n = e.m
            JOIN \(layout.table) t ON t.id = i.id
            WHERE t.doc IS DISTINCT FROM (CASE WHEN e.expected = 'null'::jsonb THEN NULL ELSE e.expected END)
            """, [.byteaArray(prepared.map(\.key)), .text(expected)])
        for row in 0..<rows.rowCount {
            guard let position = rows.int(row, 0), position >= 1, Int(position) <= prepared.count else { continue }
            problem(
                nil, "the jsonb rendering (doc) of the record \(prepared[Int(position) - 1].row.id) is not its record's"
            )
        }
    }
}
