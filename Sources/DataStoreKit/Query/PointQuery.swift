import DataStoreCore
import LMDB
import DataStoreEngine

/// A query of point shape (``/DataStoreEngine/QueryPlan/pointScan(idField:)``: `==` conditions with scalar values
/// that its plan answers from the one window of one index whose leading fields they fix),
/// compiled once per shape, so that a call only encodes its values into the window's key, seeks,
/// and re-checks what it finds. A candidate is checked against the conditions only when the
/// window can hold entries that do not match: when a condition's field is not in the window, or a
/// value was cut to fit the key (it then fixes a window wider than the value). Otherwise the window's
/// entries are exactly the matches, since a key component not cut is the value's exact encoding
/// and ends before any other component can begin (docs/encoding.md). Narrowed by a second index
/// (``/DataStoreEngine/QueryPlan/intersection``), a call checks every record it reads. The compiled form belongs to
/// the generation of the collection's index list it was made from (``PlanCache``), and is dropped
/// with it.
final class PointQuery: Sendable {
    /// The index scanned.
    let index: IndexTable
    /// Each condition's field, in ``/DataStoreCore/Query/conditions`` order.
    let fields: [String]
    /// For each leading index field the conditions fix, the position of its condition.
    private let prefixPositions: [Int]
    /// Whether each of those index fields is descending.
    private let descending: [Bool]
    /// The index's per-component key budget.
    private let budget: Int
    /// Reused cursors on the index (``/LMDB/CursorPool``).
    let cursors: CursorPool
    /// The conditions' checks, made for each call that checks its candidates.
    private let checks: PointPredicates
    /// Whether the window fixes every condition's field, so that only a cut value leaves
    /// candidates to check.
    private let windowFixesEveryField: Bool
    /// The single-field index that narrows the window (``/DataStoreEngine/QueryPlan/intersection``), the position of
    /// its condition, and reused cursors on it; `nil` when the plan has none or the window leaves a
    /// field of its own index free (its entries would not come in id order).
    private let narrowing: (index: IndexTable, position: Int, cursors: CursorPool)?

    /// The point query for `plan`, made for `query`, or `nil` when the query is not of a point
    /// shape or its plan is not one window of `index` (the table `plan` scans).
    init?(_ query: Query, plan: QueryPlan, index: IndexTable, narrowingIndex: IndexTable?, idField: String) {
        guard let (scan, positions) = plan.pointScan(idField: idField), scan.index == index.definition
        else { return nil }
        let conditions = query.conditions
        let fixed = index.definition.fields.prefix(scan.equalities.count)
        self.index = index
        self.fields = conditions.map(\.field)
        self.prefixPositions = positions
        self.descending = fixed.map(\.descending)
        self.budget = index.componentBudget
        self.cursors = CursorPool(database: index.database)
        self.checks = PointPredicates(conditions)
        self.windowFixesEveryField = positions.count == conditions.count
        if let narrowingIndex, positions.count == index.definition.fields.count,
            let position = conditions.firstIndex(where: { $0.field == narrowingIndex.definition.fields[0].name })
        {
            narrowing = (narrowingIndex, position, CursorPool(database: narrowingIndex.database))
        } else {
            narrowing = nil
        }
    }

    /// The index keys a call with `values` visits (those that start with `prefix`), and whether
    /// its candidates must be checked against the conditions.
    func window(_ values: borrowing PointValues) -> (prefix: [UInt8], checked: Bool) {
        let (prefix, cut) = prefix(values)
        return (prefix, cut || !windowFixesEveryField)
    }

    /// The key prefix of the window of a call with `values`, and whether a value was cut to fit.
    private func prefix(_ values: borrowing PointValues) -> (prefix: [UInt8], cut: Bool) {
        var prefix: [UInt8] = []
        prefix.reserveCapacity(min(KeyCodec.maxKeyBytes, 32 * prefixPositions.count))
        var cut = false
        for (slot, position) in prefixPositions.enumerated() {
            let cutHere = StorageKeys.appendComponent(
                values[position], descending: descending[slot], budget: budget, to: &prefix)
            cut = cut || cutHere
        }
        return (prefix, cut)
    }

    /// The key prefix of the narrowing index's window for a call with `values`, or `nil` when
    /// either window's value was cut (their entries need not come in id order).
    private func narrowingWindow(_ values: borrowing PointValues, primary: (prefix: [UInt8], cut: Bool))
        -> IndexIntersection?
    {
        guard let narrowing, !primary.cut else { return nil }
        var secondary: [UInt8] = []
        let field = narrowing.index.definition.fields[0]
        let cut = StorageKeys.appendComponent(
            values[narrowing.position], descending: field.descending, budget: narrowing.index.componentBudget,
            to: &secondary)
        return cut ? nil : IndexIntersection(primary: primary.prefix, secondary: secondary)
    }

    /// Calls `take` with the document bytes of each record that matches a call with `values`,
    /// over `transaction`, in index order. Not generic: a call that finds nothing runs no code
    /// that looks up the metadata of the caller's object type.
    /// - Complexity: O(log n) for the seek, plus O(entries in the window).
    func run(
        _ values: borrowing PointValues, storage: CollectionTable, in transaction: borrowing ReadTransaction,
        take: (_ body: UnsafeRawBufferPointer) throws -> Void
    ) throws {
        let primary = prefix(values)
        if let intersection = narrowingWindow(values, primary: primary), let narrowing {
            // The two windows fix their own fields only: each record read is checked against every condition.
            var found = Found(checked: true)
            defer { storage.noteRecordLookups(found.lookups) }
            try transaction.withCursor(from: cursors) { first in
                try transaction.withCursor(from: narrowing.cursors) { second in
                    try intersection.visit(first, second) { key, value in
                        try consider(key, value, primary.prefix, values, &found, storage, transaction, take)
                    }
                }
            }
            return
        }
        let (prefix, checked) = (primary.prefix, primary.cut || !windowFixesEveryField)
        var found = Found(checked: checked)
        defer { storage.noteRecordLookups(found.lookups) }
        try transaction.withCursor(from: cursors) { cursor in
            var more = try cursor.withSeek(atOrAfter: prefix) { key, value in
                try consider(key, value, prefix, values, &found, storage, transaction, take)
            }
            while more == true {
                more = try cursor.withMove(.next) { key, value in
                    try consider(key, value, prefix, values, &found, storage, transaction, take)
                }
            }
        }
    }

    /// What a run has made so far.
    private struct Found {
        /// Whether candidates are checked against the conditions (``window(_:)``).
        let checked: Bool
        /// Made at the first candidate that is checked: a call that checks none does not pay for them.
        var predicates: [RecordPredicate]?
        /// Records looked up through the index's entries.
        var lookups = 0
    }

    /// Hands the index entry `key`, `value` to `take` when its record matches; `false` once the
    /// cursor has left the window.
    private func consider(
        _ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer, _ prefix: [UInt8],
        _ values: borrowing PointValues, _ found: inout Found, _ storage: CollectionTable,
        _ transaction: borrowing ReadTransaction, _ take: (_ body: UnsafeRawBufferPointer) throws -> Void
    ) throws -> Bool {
        guard IndexIntersection.starts(key, with: prefix) else { return false }
        guard let idKey = StorageKeys.idKey(inIndexKey: key) else { return true }
        _ = try storage.withRecord(
            ofEntry: value, idKey: idKey, in: index, transaction: transaction, lookups: &found.lookups
        ) { record in
            let body = RecordVersion.body(record)
            if found.checked {
                if found.predicates == nil { found.predicates = checks.predicates(values) }
                guard try storage.recordMatches(found.predicates!, body, idKey: idKey) else { return }
            }
            try storage.namingRecord(idKey) {
                _ = try RecordVersion.read(record)
                try take(body)
            }
        }
        return true
    }
}
