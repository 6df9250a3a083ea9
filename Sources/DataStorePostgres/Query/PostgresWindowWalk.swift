import DataStoreCore
import DataStoreEngine

/// A ``/DataStoreEngine/ResumableWalk`` over a collection's table on one connection: a window is
/// read in pages of rows ordered by its key column, each page starting after the last key, so a
/// batch reads about as many rows as it keeps. The caller holds one snapshot across the
/// statements of a batch (a `REPEATABLE READ` transaction).
struct PostgresWindowWalk: Sendable {
    let layout: TableLayout
    let walk: ResumableWalk

    /// The largest page of rows one statement asks for.
    private static let largestPage = 4_096

    /// At most `count` matches after `position` (from the start when `nil`), read on `connection`.
    /// - Throws: ``/DataStoreCore/DataStoreError`` `.invalidPageToken` for a position of another
    ///   walk, `.schemaMismatch` when the index walked is gone, `.codec` for a record that cannot be read.
    func batch<Item>(
        after position: ScanPosition?, count: Int, on connection: Connection,
        materialize: ResumableWalk.Materialize<Item>
    ) throws -> ScanBatch<Item> {
        let (layout, plan) = (layout, walk.plan)
        let firstPage = min(max(count + 1, 16), Self.largestPage)
        return try walk.batch(
            after: position, count: count,
            walk: { window, definition, visit in
                var stored: StoredIndex?
                if let definition {
                    stored = layout.indexes.first { $0.definition == definition }
                    if stored == nil {
                        throw DataStoreError(.schemaMismatch, "index \(definition.name) of \(layout.name) is gone")
                    }
                }
                let scan = CandidateScan(layout, window: window, of: stored)
                var after: [UInt8]?
                var size = firstPage
                while true {
                    let statement = scan.statement(after: after, limit: size)
                    let result = try connection.executePrepared(statement.sql, statement.parameters)
                    for row in 0..<result.rowCount {
                        let keepGoing = try Self.visit(row, of: result, scan, visit)
                        if !keepGoing { return }
                    }
                    guard result.rowCount == size, let last = try scan.pageKey(row: result.rowCount - 1, of: result)
                    else { return }
                    after = last
                    size = min(size * 2, Self.largestPage)
                }
            },
            lookUp: {
                let runner = try PostgresQueryRunner(layout: layout, plan: plan, versions: false)
                return try runner.run(on: connection) { body, _ in try materialize(body, 0) } ?? []
            },
            materialize: materialize)
    }

    /// Passes row `row` of `result` to `visit`: its key in scan order, its id key and its record.
    private static func visit(
        _ row: Int, of result: QueryResult, _ scan: CandidateScan, _ visit: ResumableWalk.Visit
    ) throws -> Bool {
        let idKey = try scan.idKey(row: row, of: result)
        let key = try scan.pageKey(row: row, of: result) ?? idKey
        return try key.withUnsafeBytes { key in
            try idKey.withUnsafeBytes { idKey in
                try visit(key, idKey, result.unsafeBytes(row, scan.recordColumn)) { 0 }
            }
        }
    }
}
