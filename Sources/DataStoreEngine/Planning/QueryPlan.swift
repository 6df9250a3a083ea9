public import DataStoreCore

/// How the store answers one query. `StoreCollection.explain(params:options:)` shows it in words.
public struct QueryPlan: Sendable, Hashable, CustomStringConvertible {
    /// Where the candidate documents come from.
    public enum Access: Sendable, Hashable {
        /// Direct lookups of these ids in the records.
        case primaryKey([Value])
        /// A scan of one index between bounds.
        case indexScan(IndexScan)
        /// A walk of the records in id order, within a range of ids (`nil`: all of them).
        case idRange(ValueRange?, backward: Bool)
        /// A scan of every record.
        case fullScan
        /// Nothing can match (contradictory conditions).
        case empty
    }

    /// An index scan: an equality prefix, at most one range, a direction.
    public struct IndexScan: Sendable, Hashable {
        /// The index scanned.
        public var index: IndexDefinition
        /// When set, one seek per value: the first field takes each of these values (from an `in`
        /// condition) in turn, and ``equalities`` fix the fields after it.
        public var firstFieldValues: [Value]?
        /// Values of the leading fields fixed by `==` (after the first field when
        /// ``firstFieldValues`` is set).
        public var equalities: [Value]
        /// The range on the next field, if any.
        public var range: ValueRange?
        /// Whether the scan runs from the end of the bounds back to the start.
        public var backward: Bool
        /// Whether the documents come from the index's entries, no record being read (a
        /// covering index).
        public var covering = false
    }

    /// The candidate source.
    public var access: Access
    /// The query; every condition is re-checked on every candidate.
    public var query: Query
    /// Whether the sort comes from the scan order (no in-memory sort).
    public var sortFromScan: Bool
    /// Whether the scan stops after `offset + limit` results.
    public var limitPushedDown: Bool
    /// The collection's name.
    public var collection: String
    /// A second single-field index whose `==` condition narrows an index scan that fixes every
    /// field of its own index (not a covering one): a query reads a record only for an id both
    /// windows hold, found by walking the two in id order. `nil` for every other plan. A call whose
    /// value is cut to fit a key reads every candidate instead, as do streams and pages, which
    /// scan the first index alone; every record read is re-checked either way.
    public var intersection: IndexScan?

    public var description: String {
        var parts: [String] = []
        switch access {
        case .primaryKey(let ids):
            parts.append("primary key lookup of \(ids.count) id\(ids.count == 1 ? "" : "s") in \(collection)")
        case .indexScan(let scan):
            let fixed = scan.firstFieldValues == nil ? scan.index.fields[...] : scan.index.fields.dropFirst()
            var bounds: [String] = zip(fixed, scan.equalities).map {
                "\($0.name) == \($1.description(limit: Value.planTextLimit))"
            }
            if let values = scan.firstFieldValues {
                let shown = Value.array(values).description(limit: Value.planTextLimit)
                bounds.insert("\(scan.index.fields[0].name) in \(shown) (\(values.count) seeks)", at: 0)
            }
            if let range = scan.range {
                bounds.append("\(fixed.dropFirst(scan.equalities.count).first!.name) in \(range)")
            }
            let shown = bounds.isEmpty ? "all entries" : bounds.joined(separator: ", ")
            let kind = scan.covering ? "covering index scan" : "index scan"
            parts.append(
                "\(kind) of \(scan.index.name) on \(collection) (\(shown)), \(scan.backward ? "backward" : "forward")")
            if let narrowing = intersection {
                let fixed = zip(narrowing.index.fields, narrowing.equalities).map {
                    "\($0.name) == \($1.description(limit: Value.planTextLimit))"
                }
                parts.append(
                    "narrowed by index \(narrowing.index.name) (\(fixed.joined(separator: ", "))): "
                        + "a query reads records only for ids in both windows (streams and pages, "
                        + "and a value cut to fit a key, read every candidate)")
            }
        case .idRange(let range, let backward):
            let shown = range.map { "ids in \($0)" } ?? "all ids"
            parts.append("id range scan of \(collection) (\(shown)), \(backward ? "backward" : "forward")")
        case .fullScan:
            parts.append("full scan of \(collection)")
        case .empty:
            parts.append("no scan: the conditions contradict each other")
        }
        parts.append(
            query.conditions.isEmpty
                ? "no filter"
                : "filter: " + query.conditions.map(\.description).joined(separator: " and "))
        if query.sort.isEmpty {
            parts.append("order: unspecified (scan order)")
        } else {
            let keys = query.sort.map(\.description).joined(separator: ", ")
            let order: String
            if case .idRange = access { order = "id order" } else { order = "index order" }
            parts.append(sortFromScan ? "sort: \(keys) from \(order)" : "sort: \(keys) in memory")
        }
        if let limit = query.limit {
            parts.append(
                "limit \(limit)" + (query.offset > 0 ? " offset \(query.offset)" : "")
                    + (limitPushedDown ? " pushed into the scan" : " after sorting"))
        } else if query.offset > 0 {
            parts.append("offset \(query.offset)")
        }
        return parts.joined(separator: "; ")
    }
}
