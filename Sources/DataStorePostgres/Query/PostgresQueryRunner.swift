import DataStoreCore
import DataStoreEngine

/// Runs a ``/DataStoreEngine/QueryPlan`` against the server as the LMDB store's executor runs it over a
/// snapshot: candidates in scan order, every condition re-checked on the record bytes, sorted
/// (unless the scan order is the sort), then offset and limit. With the limit pushed down,
/// candidates come in pages of `LIMIT` rows, so the scan stops about where LMDB's would.
struct PostgresQueryRunner: Sendable {
    let layout: TableLayout
    let plan: QueryPlan
    private let predicates: [RecordPredicate]
    private let scans: [CandidateScan]
    /// The collector each run starts from (built once: the plan's parts it reads do not change).
    private let emptyCollector: ResultCollector
    /// Where the scan may stop: the collector's `offset + limit` when the limit is pushed into it.
    private var stopEarly: Int? { emptyCollector.stopEarly }
    /// Where rows carry their versions, when they are read with them (else `materialize` is given 0).
    private let versionColumn: Int?

    /// A runner of `plan` over `layout`, reading each row's version unless `versions` is `false`
    /// (a collection's reads, which do not use it, so the server sends one column fewer per row).
    /// - Throws: ``/DataStoreCore/DataStoreError`` `.schemaMismatch` when the plan's index is gone.
    init(layout: TableLayout, plan: QueryPlan, versions: Bool = true) throws(DataStoreError) {
        self.init(
            layout: layout, plan: plan, predicates: RecordPredicate.ordered(plan.query.conditions),
            scans: try CandidateScan.scans(plan, layout: layout, versions: versions),
            collector: ResultCollector(plan: plan, idField: layout.idField, collection: layout.name), versions: versions
        )
    }

    /// The runner of `plan` with its parts made already (a compiled query's,
    /// ``PostgresPointQuery``): `predicates` in `RecordPredicate.ordered(_:)` order, the candidate
    /// `scans`, and the empty `collector` of its results.
    init(
        layout: TableLayout, plan: QueryPlan, predicates: [RecordPredicate], scans: [CandidateScan],
        collector: ResultCollector, versions: Bool = false
    ) {
        self.layout = layout
        self.plan = plan
        self.predicates = predicates
        self.scans = scans
        // A primary-key lookup's rows are `id`, `record`, `version`, as a scan's that is not lean.
        versionColumn = versions ? scans.first?.versionColumn ?? 2 : nil
        emptyCollector = collector
    }

    /// Whether the plan takes several statements whatever the rows (several windows), and so
    /// needs a transaction from the start to read one snapshot.
    var needsSeveralStatements: Bool { scans.count > 1 }

    /// The first statement ``run(on:singleStatement:materialize:)`` sends, or `nil` for a
    /// primary-key lookup or an empty plan.
    var firstStatement: (sql: SQLText, parameters: [SQLParameter])? {
        guard let scan = scans.first else { return nil }
        return scan.statement(after: nil, limit: firstPageSize, ordered: !isUnlimitedFullScan(stopEarly))
    }

    /// Whether the plan reads the whole table, in no order the server must give.
    private func isUnlimitedFullScan(_ pageSize: Int?) -> Bool {
        if pageSize == nil, case .fullScan = plan.access { return true }
        return false
    }

    /// The matching records, each turned into an `Item` by `materialize` (given the record
    /// bytes and its version), over one snapshot of `connection`; `nil` when `singleStatement`
    /// and one statement did not answer (a second page was needed), so that the caller can run
    /// it again inside a transaction. A caller that does not need an unsorted whole-table scan's
    /// matches in id order (a count) passes `idOrder: false`.
    /// - Complexity: O(candidates × conditions), plus O(r log r) for an in-memory sort.
    func run<Item>(
        on connection: Connection, singleStatement: Bool = false, idOrder: Bool = true,
        materialize: (_ body: UnsafeRawBufferPointer, _ version: Int64) throws -> Item
    ) throws -> [Item]? {
        try collect(materialize) { consider in
            try visitMatches(on: connection, singleStatement: singleStatement, idOrder: idOrder, consider)
        }
    }

    /// The statement that answers the plan by itself unless re-checks leave its first page short
    /// (``answer(from:idOrder:materialize:)`` then returns `nil`), or `nil` when no one statement
    /// can (several windows, an empty plan).
    var soleStatement: (sql: SQLText, parameters: [SQLParameter])? {
        if case .primaryKey(let ids) = plan.access { return idStatement(ids) }
        return scans.count == 1 ? firstStatement : nil
    }

    /// The matches in `result`, the rows of ``soleStatement``, as ``run(on:singleStatement:idOrder:materialize:)``
    /// gives them; `nil` when a further page is needed.
    func answer<Item>(
        from result: QueryResult, idOrder: Bool = true,
        materialize: (_ body: UnsafeRawBufferPointer, _ version: Int64) throws -> Item
    ) throws -> [Item]? {
        try collect(materialize) { consider in
            if case .primaryKey(let ids) = plan.access {
                try visitIDs(ids, in: result, consider)
                return true
            }
            if isUnlimitedFullScan(stopEarly) {
                try visitInIDOrder(result, scans[0], idOrder: idOrder, consider)
                return true
            }
            var seen = Set<[UInt8]>()
            if case .more = try visitPage(result, scans[0], pageSize: firstPageSize, seen: &seen, consider) {
                return false
            }
            return true
        }
    }

    /// The items of the records `visit` passes on, as the plan's collector keeps them, or `nil`
    /// when `visit` returns `false` (it could not finish).
    private func collect<Item>(
        _ materialize: (UnsafeRawBufferPointer, Int64) throws -> Item,
        _ visit: (_ take: Take) throws -> Bool
    ) throws -> [Item]? {
        var collector = emptyCollector
        var items: [Item] = []
        // `visit` only calls the closure while it runs: nothing escapes. A page at a time, so the
        // captured variables are reached once per page, not per row.
        let versionColumn = versionColumn
        let complete = try withoutActuallyEscaping(materialize) { materialize in
            try visit { result, matches in
                try Self.take(
                    matches, of: result, versionColumn: versionColumn, into: &items, collector: &collector, materialize)
            }
        }
        return complete ? collector.results(items) : nil
    }

    /// Appends the items of `matches` of `result` while `collector` admits them; returns whether to go on.
    private static func take<Item>(
        _ matches: [Match], of result: QueryResult, versionColumn: Int?, into items: inout [Item],
        collector: inout ResultCollector,
        _ materialize: (UnsafeRawBufferPointer, Int64) throws -> Item
    ) throws -> Bool {
        // An array made with capacity 0 writes its count into the shared empty-array storage,
        // which ThreadSanitizer reports as a race between readers.
        guard !matches.isEmpty else { return true }
        var goOn = true
        // Filled through its buffer: in code generic over `Item`, each `append` would look up the
        // array type's metadata, a hash-table search per row.
        let page = try [Item](unsafeUninitializedCapacity: matches.count) { buffer, count in
            for match in matches {
                let admission = try collector.admit(match.record)
                if admission != .stop {
                    let version = versionColumn.flatMap { result.int(match.row, $0) } ?? 0
                    (buffer.baseAddress! + count).initialize(to: try materialize(match.record, version))
                    count += 1
                }
                if admission != .take {
                    goOn = false
                    return
                }
            }
        }
        if items.isEmpty { items = page } else { items.append(contentsOf: page) }
        return goOn
    }

    /// The size of a scan's first page: the limit pushed down, at least 16, or `nil` for no limit.
    private var firstPageSize: Int? { stopEarly.map { max($0, 16) } }

    /// Whether rows may come twice (several windows, a multi-value index) and so are told apart by id.
    private var deduplicates: Bool {
        scans.count > 1 || { if case .indexScan(let s) = plan.access { s.index.multiValue } else { false } }()
    }

    /// Passes `consider` the matching rows of each page in scan order until it returns `false`;
    /// a record met twice (a multi-value index, overlapping windows) only once. Returns
    /// `false` when `singleStatement` and a second statement was needed.
    private func visitMatches(
        on connection: Connection, singleStatement: Bool, idOrder: Bool,
        _ consider: Take
    ) throws -> Bool {
        if case .primaryKey(let ids) = plan.access {
            guard let statement = idStatement(ids) else { return true }
            try visitIDs(ids, in: try connection.executePrepared(statement.sql, statement.parameters), consider)
            return true
        }
        if singleStatement && scans.count > 1 { return false }
        var seen = Set<[UInt8]>()
        for scan in scans {
            if isUnlimitedFullScan(stopEarly) {
                let statement = scan.statement(after: nil, limit: nil, ordered: false)
                let result = try connection.executePrepared(statement.sql, statement.parameters)
                try visitInIDOrder(result, scan, idOrder: idOrder, consider)
                return true
            }
            var last: [UInt8]?
            var page = firstPageSize
            pages: while true {
                if last != nil && singleStatement { return false }
                let statement = scan.statement(after: last, limit: page)
                let result = try connection.executePrepared(statement.sql, statement.parameters)
                switch try visitPage(result, scan, pageSize: page, seen: &seen, consider) {
                case .stopped: return true
                case .exhausted: break pages
                case .more(let next):
                    last = next
                    page = page.map { $0 * 2 }
                }
            }
        }
        return true
    }

    /// What one page of a scan left to do.
    private enum PageOutcome {
        /// `consider` stopped the scan.
        case stopped
        /// The window has no more rows.
        case exhausted
        /// The page was full: the next one starts after this key.
        case more(after: [UInt8])
    }

    /// Visits the matching rows of one page of `scan`, `result`, skipping ids in `seen` when
    /// rows may come twice.
    private func visitPage(
        _ result: QueryResult, _ scan: CandidateScan, pageSize: Int?, seen: inout Set<[UInt8]>,
        _ consider: Take
    ) throws -> PageOutcome {
        let deduplicate = deduplicates
        var found: [Match] = []
        found.reserveCapacity(result.rowCount)
        for row in 0..<result.rowCount {
            if deduplicate, let id = result.bytes(row, 0), !seen.insert(id).inserted { continue }
            let record = result.unsafeBytes(row, scan.recordColumn)
            if try matches(record) { found.append(Match(row: row, record: record)) }
        }
        if !(try consider(result, found)) { return .stopped }
        guard let size = pageSize, result.rowCount == size, size > 0,
            let last = try scan.pageKey(row: result.rowCount - 1, of: result)
        else { return .exhausted }
        return .more(after: last)
    }

    /// A whole-table scan without a limit, `result` of `scan`: every row in the server's order
    /// (no sort on the server), the matches then visited in id order — the order LMDB's scan meets
    /// them in — unless `idOrder` is `false`.
    private func visitInIDOrder(
        _ result: QueryResult, _ scan: CandidateScan, idOrder: Bool, _ consider: Take
    ) throws {
        var found: [Match] = []
        for row in 0..<result.rowCount {
            let record = result.unsafeBytes(row, scan.recordColumn)
            if try matches(record) { found.append(Match(row: row, record: record)) }
        }
        if idOrder {
            // Only the matches' ids, and only to sort them: the rows do not carry them.
            let ids = try found.map { match throws(DataStoreError) in try scan.idKey(row: match.row, of: result) }
            if !zip(ids, ids.dropFirst()).allSatisfy({ !$1.lexicographicallyPrecedes($0) }) {
                found = zip(ids, found).sorted { $0.0.lexicographicallyPrecedes($1.0) }.map(\.1)
            }
        }
        _ = try consider(result, found)
    }

    /// The statement reading the records of `ids`, or `nil` when none is a valid id.
    private func idStatement(_ ids: [Value]) -> (sql: SQLText, parameters: [SQLParameter])? {
        let keys = ids.compactMap { try? layout.idKey($0) }
        guard !keys.isEmpty else { return nil }
        return (layout.recordsByIDs, [.byteaArray(keys)])
    }

    /// The records of `ids` in `result` that match, in the order given.
    private func visitIDs(
        _ ids: [Value], in result: QueryResult, _ consider: Take
    ) throws {
        var position: [[UInt8]: Int] = [:]
        for row in 0..<result.rowCount { if let id = result.bytes(row, 0) { position[id] = row } }
        var found: [Match] = []
        for key in ids.compactMap({ try? layout.idKey($0) }) {
            guard let row = position.removeValue(forKey: key) else { continue }
            let record = result.unsafeBytes(row, 1)
            if try matches(record) { found.append(Match(row: row, record: record)) }
        }
        _ = try consider(result, found)
    }

    /// Takes the matching rows of `result`, in order, until the collector stops; returns whether to go on.
    typealias Take = (_ result: QueryResult, _ matches: [Match]) throws -> Bool

    /// A row that met every condition, with its record bytes as libpq holds them (valid while
    /// the result lives), so that they are looked up once per row.
    struct Match {
        let row: Int
        let record: UnsafeRawBufferPointer
    }

    /// Whether `record` meets every condition.
    private func matches(_ record: UnsafeRawBufferPointer) throws -> Bool {
        do { return try RecordPredicate.all(predicates, match: record) } catch {
            throw DataStoreError(.codec, "a record in \(layout.name) cannot be read", underlying: error)
        }
    }
}
