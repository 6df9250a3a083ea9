import DataStoreCore

/// One batch of a ``ResumableWalk`` over an index that serves the query's sort, in the query's
/// order: the index orders a run of equal (or cut) sort keys by its later fields and the id, so
/// each run is read whole and ordered by the real values, then the id, as a query orders them.
///
/// A batch ends at the end of a run; the position after it is the last row's sort values and id.
/// The next batch seeks to the start of that row's run and skips the rows up to it, so it reads
/// again at most one run.
struct SortedRuns {
    let walk: ResumableWalk
    let scan: QueryPlan.IndexScan
    /// The index's bytes per key component.
    let budget: Int

    private struct Row<Item> {
        var sortValues: [Value?]
        var id: Value
        var run: [UInt8]
        var item: Item
    }

    private var query: Query { walk.plan.query }

    func batch<Item>(
        after position: ScanPosition?, count: Int, walk read: ResumableWalk.WalkWindow,
        materialize: ResumableWalk.Materialize<Item>
    ) throws -> ScanBatch<Item> {
        var window = IndexWindow(scan: scan, budget: budget)
        var resume: (sortValues: [Value?], id: Value)?
        switch position {
        case nil: break
        case .row(let sortValues, let id)? where sortValues.count == query.sort.count:
            resume = (sortValues, id)
            window = window.resuming(at: equalityPrefix() + runKey(sortValues))
        default: throw ResumableWalk.misplaced()
        }
        var rows: [Row<Item>] = []
        var stopped = false
        // `read` calls the closure only while it runs, and `materialize` only through it.
        try withoutActuallyEscaping(materialize) { materialize in
            try read(window, scan.index) { _, idKey, body, version in
                guard try walk.matches(body, idKey: idKey) else { return true }
                let sortValues = try query.sort.map { try field($0.field, in: body, idKey: idKey) }
                let id = try field(walk.idField, in: body, idKey: idKey) ?? .null
                if let resume, !inOrder(resume.sortValues, resume.id, sortValues, id) { return true }
                let run = runKey(sortValues)
                if rows.count >= count, run != rows.last?.run {
                    stopped = true
                    return false
                }
                let item = try walk.materialized(idKey, body, version, materialize)
                rows.append(Row(sortValues: sortValues, id: id, run: run, item: item))
                return true
            }
        }
        sortRuns(&rows)
        let kept = rows.prefix(count)
        guard let last = kept.last, stopped || rows.count > count else {
            return ScanBatch(items: kept.map { $0.item }, after: nil)
        }
        return ScanBatch(items: kept.map { $0.item }, after: .row(sortValues: last.sortValues, id: last.id))
    }

    /// The index key bytes of the equality conditions the scan fixes.
    private func equalityPrefix() -> [UInt8] {
        var prefix: [UInt8] = []
        for (field, value) in zip(scan.index.fields, scan.equalities) {
            StorageKeys.appendComponent(value, descending: field.descending, budget: budget, to: &prefix)
        }
        return prefix
    }

    /// The index key bytes of a row's sort values after the equality prefix, up to the first cut
    /// one: rows sharing them are one run, contiguous in the index.
    private func runKey(_ sortValues: [Value?]) -> [UInt8] {
        let fixed = scan.index.fields.prefix(scan.equalities.count)
        let positions = query.sort.indices.filter { position in
            !fixed.contains { $0.name == query.sort[position].field }
        }
        var key: [UInt8] = []
        for (field, position) in zip(scan.index.fields.dropFirst(scan.equalities.count), positions) {
            let cut = StorageKeys.appendComponent(
                sortValues[position], descending: field.descending, budget: budget, to: &key)
            if cut { break }
        }
        return key
    }

    /// Whether the row (`a`, `aID`) comes before (`b`, `bID`) in the query's order.
    private func inOrder(_ a: [Value?], _ aID: Value, _ b: [Value?], _ bID: Value) -> Bool {
        for (position, key) in query.sort.enumerated() {
            let order = Query.compareSortValues(a[position], b[position])
            if order != 0 { return key.ascending ? order < 0 : order > 0 }
        }
        return Value.compare(aID, bID) < 0
    }

    /// Orders each run of rows by the real sort values, then the id.
    private func sortRuns<Item>(_ rows: inout [Row<Item>]) {
        var start = 0
        while start < rows.count {
            var end = start + 1
            while end < rows.count && rows[end].run == rows[start].run { end += 1 }
            if end - start > 1 {
                rows[start..<end].sort { inOrder($0.sortValues, $0.id, $1.sortValues, $1.id) }
            }
            start = end
        }
    }

    private func field(_ name: String, in body: UnsafeRawBufferPointer, idKey: UnsafeRawBufferPointer) throws
        -> Value?
    {
        do { return try RecordCodec.value(atPath: name, in: body) } catch { throw walk.unreadable(idKey, error) }
    }
}
