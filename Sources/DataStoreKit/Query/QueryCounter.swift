import DataStoreCore
import LMDB
import DataStoreEngine

/// Counts what a plan matches without building any object: from the index entries alone when
/// the index holds every condition's field, otherwise by checking conditions on record bytes.
package struct QueryCounter {
    let storage: CollectionTable
    let plan: QueryPlan

    /// A count, and how it was reached.
    package struct Outcome: Equatable {
        package var count: Int
        /// Whether index entries were counted (they hold every condition's field).
        package var fromIndex: Bool
        /// Records read because an entry could not decide (a cut value, a missing field): 0 when
        /// the entries answered alone. Not counted on the other path, which reads every candidate.
        package var recordsRead: Int
    }

    /// - Complexity: O(entries in the window) when counted from the index, otherwise that of
    ///   running the plan.
    func count(in transaction: borrowing some ReadableTransaction & ~Copyable) throws -> Outcome {
        if case .indexScan(let scan) = plan.access, let positions = conditionPositions(scan.index) {
            return try countEntries(scan, positions: positions, in: transaction)
        }
        let matches: [Void] = try QueryExecutor(storage: storage, plan: plan).run(in: transaction) { _, _ in () }
        return Outcome(count: matches.count, fromIndex: false, recordsRead: 0)
    }

    /// Each condition's field position in `index`, or `nil` when entries cannot decide them: a
    /// field outside the index; on a multi-value index (an entry per element), several
    /// conditions (a document matches when each holds for *some* element, not necessarily the
    /// same one), `!=`, `!in` and `exists` (which speak of the whole field), or an array or
    /// object value (compared with the whole field).
    private func conditionPositions(_ index: IndexDefinition) -> [Int]? {
        let conditions = plan.query.conditions
        if index.multiValue {
            guard conditions.count == 1, let condition = conditions.first,
                ![.notEqual, .notIn, .exists].contains(condition.op)
            else { return nil }
            let values = condition.op == .in ? (condition.value.arrayValue ?? []) : [condition.value]
            guard values.allSatisfy({ $0.arrayValue == nil && $0.objectValue == nil }) else { return nil }
        }
        var positions: [Int] = []
        for condition in conditions {
            guard let position = index.fields.firstIndex(where: { $0.name == condition.field }) else { return nil }
            positions.append(position)
        }
        return positions
    }

    private func countEntries(
        _ scan: QueryPlan.IndexScan, positions: [Int],
        in transaction: borrowing some ReadableTransaction & ~Copyable
    ) throws -> Outcome {
        guard let index = storage.indexes.first(where: { $0.definition == scan.index }) else {
            throw DataStoreError(.schemaMismatch, "index \(scan.index.name) of \(storage.name) is gone")
        }
        let conditions = plan.query.conditions
        let predicates = RecordPredicate.ordered(conditions)
        let windows = IndexWindow.windows(for: scan, budget: index.componentBudget)
        let deduplicate = index.definition.multiValue || windows.count > 1
        var seen = Set<[UInt8]>()
        var outcome = Outcome(count: 0, fromIndex: true, recordsRead: 0)
        defer { storage.noteRecordLookups(outcome.recordsRead) }
        for window in windows {
            try window.visitEntries(index.database, in: transaction) { key, value in
                guard let idKey = StorageKeys.idKey(inIndexKey: key) else { return true }
                let components = UnsafeRawBufferPointer(rebasing: key[..<(key.count - 1 - idKey.count)])
                let matched: Bool
                if let values = Self.exactValues(components) {
                    matched = zip(conditions, positions).allSatisfy { $0.matches(fieldValue: values[$1]) }
                } else {
                    // A cut value, or a missing field: the record (or a covering entry's copy) decides.
                    matched =
                        try storage.withRecord(
                            ofEntry: value, idKey: idKey, in: index, transaction: transaction,
                            lookups: &outcome.recordsRead
                        ) { record in
                            try storage.recordMatches(predicates, RecordVersion.body(record), idKey: idKey)
                        } ?? false
                }
                if matched && (!deduplicate || seen.insert(Array(idKey)).inserted) { outcome.count += 1 }
                return true
            }
        }
        return outcome
    }

    /// The values of an entry's components, when none was cut and every field is present.
    private static func exactValues(_ components: UnsafeRawBufferPointer) -> [Value]? {
        guard let decoded = try? KeyCodec.decodeComponents(components), !decoded.contains(where: \.isTruncated) else {
            return nil
        }
        return decoded.map(\.value)
    }
}
