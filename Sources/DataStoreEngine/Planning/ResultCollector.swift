import DataStoreCore

/// Decides which matches of one run of a ``QueryPlan`` are kept, and in what order, whichever
/// backend reads the candidates: in scan order without a sort, else by their sort values; offset
/// and limit apply at the end. Both stores feed it, so a query answers alike on each.
///
/// It is not generic: the caller keeps the items it makes of the matches taken (in the order
/// taken), so that code generic over the item type, unspecialized across modules, runs once per
/// match only to make and append the item, not to look up type metadata for the collector.
package struct ResultCollector {
    /// What to do with a match.
    package enum Admission {
        /// Keep it (append its item) and go on.
        case take
        /// Keep it, then stop the scan: the limit is reached.
        case takeAndStop
        /// Drop it and stop the scan.
        case stop
    }

    /// One result of a sorted query, with what sorting needs; `position` is its item's index.
    private struct Row {
        var id: Value
        var sortValues: [Value?]
        var group: [UInt8]
        var position: Int
    }

    /// The query's sort keys; a collector keeps only what it reads of the plan, since copying a
    /// whole plan retains and releases every part of it.
    private let sort: [SortKey]
    /// Whether the scan order is the sort order (``QueryPlan/sortFromScan``).
    private let sortFromScan: Bool
    private let idField: String
    private let collection: String
    private let offset: Int
    private let limit: Int?
    /// Where the scan may stop: `offset + limit` when the limit is pushed into it.
    package let stopEarly: Int?
    /// The per-component budget of the index whose order is the sort, for runs of cut keys.
    private let sortBudget: Int?
    /// How many matches were taken.
    private var taken = 0
    private var rows: [Row] = []
    private var lastGroup: [UInt8]?

    /// A collector for `plan` over a collection whose documents' ids are in `idField`.
    package init(plan: QueryPlan, idField: String, collection: String) {
        (self.idField, self.collection) = (idField, collection)
        (sort, sortFromScan) = (plan.query.sort, plan.sortFromScan)
        // Negative values mean 0 (``/DataStoreCore/Query/limit``, ``/DataStoreCore/Query/offset``).
        let offset = max(0, plan.query.offset)
        let limit = plan.query.limit.map { max(0, $0) }
        (self.offset, self.limit) = (offset, limit)
        let stopEarly = Self.stopEarly(of: plan)
        self.stopEarly = stopEarly
        if plan.sortFromScan, case .indexScan(let scan) = plan.access {
            sortBudget = StorageKeys.componentBudget(fieldCount: scan.index.fields.count)
        } else {
            sortBudget = nil
        }
        // Room is made up front only for a known count: a point query that matches little would
        // pay for the allocation on every call.
        if let stopEarly, !plan.query.sort.isEmpty { rows.reserveCapacity(min(stopEarly, 1_024)) }
    }

    /// Room for the items of a run of `plan` that may stop early, as many as it can keep (at most
    /// 1 024), known before a collector is made.
    package static func expectedCount(of plan: QueryPlan) -> Int? {
        stopEarly(of: plan).map { min($0, 1_024) }
    }

    /// Where a run of `plan` may stop: `offset + limit` when the limit is pushed into the scan.
    private static func stopEarly(of plan: QueryPlan) -> Int? {
        plan.limitPushedDown ? plan.query.limit.map { max(0, plan.query.offset) + max(0, $0) } : nil
    }

    /// Whether to keep a record that matched every condition (`body`, the document's bytes).
    package mutating func admit(_ body: UnsafeRawBufferPointer) throws -> Admission {
        let sort = self.sort
        guard !sort.isEmpty else {
            if let stopEarly, taken >= stopEarly { return .stop }
            taken += 1
            // With the limit reached, stop without reading another record.
            return stopEarly.map { taken < $0 } ?? true ? .take : .takeAndStop
        }
        let sortValues = try sort.map { try field($0.field, in: body) }
        var group: [UInt8] = []
        if let sortBudget {
            // Entries sharing a cut component are in id order, not value order, whatever
            // follows it: a run of equal keys ends at the first cut component.
            for (key, value) in zip(sort, sortValues) {
                if StorageKeys.appendComponent(value, descending: !key.ascending, budget: sortBudget, to: &group) {
                    break
                }
            }
        }
        if let stopEarly, rows.count >= stopEarly {
            // Past the limit: finish only the run of equal sort keys that straddles it.
            guard sortBudget != nil, group == lastGroup else { return .stop }
        }
        // Ids break ties between sort keys.
        let id = try field(idField, in: body) ?? .null
        rows.append(Row(id: id, sortValues: sortValues, group: group, position: taken))
        taken += 1
        lastGroup = group
        return .take
    }

    /// The results among `items` — one per match taken, in the order taken — sorted when the
    /// query has a sort, within the offset and the limit.
    package func results<Item>(_ items: [Item]) -> [Item] {
        guard !sort.isEmpty else {
            if offset == 0 && (limit ?? .max) >= items.count { return items }
            let kept = Self.window(items.count, offset: offset, limit: limit)
            return kept == items.indices ? items : Array(items[kept])
        }
        let ordered = sortedRows()
        // A closure, not `\.position`: a key path is instantiated at run time on every call.
        return ordered[Self.window(ordered.count, offset: offset, limit: limit)].map { items[$0.position] }
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
        let sort = self.sort
        var rows = rows
        let inOrder: (Row, Row) -> Bool = { a, b in
            for (position, key) in sort.enumerated() {
                let order = Query.compareSortValues(a.sortValues[position], b.sortValues[position])
                if order != 0 { return key.ascending ? order < 0 : order > 0 }
            }
            return Value.compare(a.id, b.id) < 0
        }
        guard sortFromScan else {
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
