import DataStoreCore

/// Gathers the matches of one run of a ``QueryPlan``, whichever backend reads the candidates: in
/// scan order without a sort, else as rows with their sort values, then sorted; offset and limit
/// apply at the end. Both stores feed it, so a query answers alike on each.
package struct ResultCollector<Item> {
    /// One result, with what sorting needs.
    private struct Row {
        var id: Value
        var sortValues: [Value?]
        var group: [UInt8]
        var item: Item
    }

    private let plan: QueryPlan
    private let idField: String
    private let collection: String
    private let offset: Int
    private let limit: Int?
    /// Where the scan may stop: `offset + limit` when the limit is pushed into it.
    package let stopEarly: Int?
    /// The per-component budget of the index whose order is the sort, for runs of cut keys.
    private let sortBudget: Int?
    private var items: [Item] = []
    private var rows: [Row] = []
    private var lastGroup: [UInt8]?

    /// A collector for `plan` over a collection whose documents' ids are in `idField`.
    package init(plan: QueryPlan, idField: String, collection: String) {
        (self.plan, self.idField, self.collection) = (plan, idField, collection)
        // Negative values mean 0 (``/DataStoreCore/Query/limit``, ``/DataStoreCore/Query/offset``).
        let offset = max(0, plan.query.offset)
        let limit = plan.query.limit.map { max(0, $0) }
        (self.offset, self.limit) = (offset, limit)
        let stopEarly = plan.limitPushedDown ? limit.map { offset + $0 } : nil
        self.stopEarly = stopEarly
        if case .indexScan(let scan) = plan.access, plan.sortFromScan {
            sortBudget = StorageKeys.componentBudget(fieldCount: scan.index.fields.count)
        } else {
            sortBudget = nil
        }
        // Room is made up front only for a known count: a point query that matches little would
        // pay for the allocation on every call.
        if let stopEarly {
            if plan.query.sort.isEmpty {
                items.reserveCapacity(min(stopEarly, 1_024))
            } else {
                rows.reserveCapacity(min(stopEarly, 1_024))
            }
        }
    }

    /// Takes a record that matched every condition (`body`, the document's bytes), made into an
    /// item by `item` only when it is kept; returns `false` when the scan may stop.
    package mutating func consider(_ body: UnsafeRawBufferPointer, _ item: () throws -> Item) throws -> Bool {
        let query = plan.query
        guard !query.sort.isEmpty else {
            if let stopEarly, items.count >= stopEarly { return false }
            items.append(try item())
            // With the limit reached, stop without reading another record.
            return stopEarly.map { items.count < $0 } ?? true
        }
        let sortValues = try query.sort.map { try field($0.field, in: body) }
        var group: [UInt8] = []
        if let sortBudget {
            // Entries sharing a cut component are in id order, not value order, whatever
            // follows it: a run of equal keys ends at the first cut component.
            for (key, value) in zip(query.sort, sortValues) {
                if StorageKeys.appendComponent(value, descending: !key.ascending, budget: sortBudget, to: &group) {
                    break
                }
            }
        }
        if let stopEarly, rows.count >= stopEarly {
            // Past the limit: finish only the run of equal sort keys that straddles it.
            guard sortBudget != nil, group == lastGroup else { return false }
        }
        // Ids break ties between sort keys.
        let id = try field(idField, in: body) ?? .null
        rows.append(Row(id: id, sortValues: sortValues, group: group, item: try item()))
        lastGroup = group
        return true
    }

    /// The results, sorted when the query has a sort, within the offset and the limit.
    package func results() -> [Item] {
        guard !plan.query.sort.isEmpty else {
            if offset == 0 && (limit ?? .max) >= items.count { return items }
            let kept = Self.window(items.count, offset: offset, limit: limit)
            return kept == items.indices ? items : Array(items[kept])
        }
        let ordered = sortedRows()
        // A closure, not `\.item`: a key path is instantiated at run time on every call.
        return ordered[Self.window(ordered.count, offset: offset, limit: limit)].map { $0.item }
    }

    /// The positions of `count` results that `offset` and `limit` (already clamped to ≥ 0) keep.
    private static func window(_ count: Int, offset: Int, limit: Int?) -> Range<Int> {
        let from = min(offset, count)
        return from..<(limit.map { min(count, from + $0) } ?? count)
    }

    private func field(_ name: String, in body: UnsafeRawBufferPointer) throws -> Value? {
        do {
            return try RecordCodec.value(atPath: name, in: body)
        } catch {
            throw DataStoreError(.codec, "a record in \(collection) cannot be read (field \(name))", underlying: error)
        }
    }

    /// The rows of a sorted query in order: sorted in memory, or — when the scan gave the order —
    /// within runs of equal index keys only.
    private func sortedRows() -> [Row] {
        let query = plan.query
        var rows = rows
        let inOrder: (Row, Row) -> Bool = { a, b in
            for (position, key) in query.sort.enumerated() {
                let order = Query.compareSortValues(a.sortValues[position], b.sortValues[position])
                if order != 0 { return key.ascending ? order < 0 : order > 0 }
            }
            return Value.compare(a.id, b.id) < 0
        }
        guard plan.sortFromScan else {
            rows.sort(by: inOrder)
            return rows
        }
        // The scan ordered runs of equal (possibly cut) keys by id in scan direction: order each
        // run by the real values, then by id.
        var start = 0
        while start < rows.count {
            var end = start + 1
            while end < rows.count && rows[end].group == rows[start].group { end += 1 }
            if end - start > 1 { rows[start..<end].sort(by: inOrder) }
            start = end
        }
        return rows
    }
}
