package import DataStoreCore

/// Chooses how to answer a query: a primary-key lookup, the index that serves the most (equality
/// prefix, then one range, then the sort), or a full scan.
package enum QueryPlanner {
    /// - Parameters:
    ///   - indexes: the complete indexes (``CollectionTable/readyIndexes``).
    ///   - choices: where to remember and reuse the choice for this query's shape, with the
    ///     generation read before `indexes` (``PlanCache``); `nil` plans afresh.
    package static func plan<Index: DeclaredIndex>(
        _ query: Query,
        idField: String,
        indexes: [Index],
        collection: String,
        choices: (table: PlanCache, generation: Int)? = nil
    ) -> QueryPlan {
        plan(
            query, idField: idField, indexes: indexes, collection: collection,
            memory: choices.map { .shared($0.table, generation: $0.generation) })
    }

    /// ``plan(_:idField:indexes:collection:choices:)`` over bare definitions, for a store in
    /// another module: not generic, so that the planner runs compiled for its index type here
    /// rather than unspecialized there, where every step over the indexes went through witness
    /// tables and generic-metadata lookups.
    package static func plan(
        _ query: Query,
        idField: String,
        definitions: [IndexDefinition],
        collection: String,
        choices: (table: PlanCache, generation: Int)? = nil
    ) -> QueryPlan {
        plan(query, idField: idField, indexes: definitions, collection: collection, choices: choices)
    }

    /// - Parameters:
    ///   - memory: where to look up and keep the choice for this query's shape; `nil` plans afresh.
    package static func plan<Index: DeclaredIndex>(
        _ query: Query,
        idField: String,
        indexes: [Index],
        collection: String,
        memory: PlanMemory?
    ) -> QueryPlan {
        var plan = QueryPlan(
            access: .fullScan, query: query, sortFromScan: false, limitPushedDown: false, collection: collection)
        // Contradictions only count on fields a single-value index covers: writes refuse arrays
        // there, and an array field can meet "a < 3 and a > 5" with two elements.
        // Each condition field's range, computed once for every index considered.
        let ranges = FieldRanges(query)
        let contradicted = ranges.hasEmptyField { field in
            indexes.contains { index in
                !index.definition.multiValue && index.definition.fields.contains { $0.name == field }
            }
        }
        if contradicted || query.limit == 0 {
            plan.access = .empty
            return plan
        }
        // 1. Ids fixed by `==` or `in` on the id field.
        if let ids = fixedIDs(query, idField: idField) {
            plan.access = ids.isEmpty ? .empty : .primaryKey(ids)
            return plan
        }
        // 2. The index that serves the most: the one chosen for this shape before, if it still
        //    scores the same with these values, or the best of all.
        let best = bestIndex(for: query, indexes: indexes, ranges: ranges, memory: memory)
        // The records themselves are ordered by id: a range or a sort on the id field walks them.
        let idRange = ranges[idField]
        let sortByID = query.sort.count == 1 && query.sort[0].field == idField
        let idScore = (idRange == nil ? 0 : 2) + (sortByID ? (query.limit == nil ? 1 : 2) : 0)
        if let best, best.score >= idScore {
            plan.access = .indexScan(best.scan)
            plan.sortFromScan = best.sorted
            plan.intersection = narrowing(best.scan, for: query, indexes: indexes, ranges: ranges)
        } else if idScore > 0 {
            plan.access = .idRange(idRange, backward: sortByID && !query.sort[0].ascending)
            plan.sortFromScan = sortByID
        }
        plan.limitPushedDown = query.limit != nil && (query.sort.isEmpty || plan.sortFromScan)
        return plan
    }

    private typealias Candidate = (score: Int, scan: QueryPlan.IndexScan, sorted: Bool)

    /// The best-scoring index for `query`, reusing the choice remembered for its shape while it still
    /// scores the same, and remembering a new choice otherwise; `nil` when no index serves it.
    private static func bestIndex<Index: DeclaredIndex>(
        for query: Query, indexes: [Index], ranges: FieldRanges, memory: PlanMemory?
    ) -> Candidate? {
        if let choice = memory?.choice(for: query) {
            switch choice {
            case .records:
                return nil
            case .index(let name, let score):
                if let index = indexes.first(where: { $0.definition.name == name }),
                    let candidate = evaluate(index, for: query, ranges: ranges), candidate.score == score
                {
                    return candidate
                }
            }
        }
        var best: Candidate?
        for index in indexes {
            guard let candidate = evaluate(index, for: query, ranges: ranges) else { continue }
            // Of two that serve as much, one that covers documents reads no record.
            if candidate.score > (best?.score ?? 0)
                || (candidate.score == best?.score && candidate.scan.covering && best?.scan.covering == false)
            {
                best = candidate
            }
        }
        if let memory {
            memory.remember(
                best.map { PlanCache.Choice.index(name: $0.scan.index.name, score: $0.score) } ?? .records, for: query)
        }
        return best
    }

    /// A single-field index that narrows `scan` (``QueryPlan/intersection``): one whose field an
    /// `==` condition fixes and `scan`'s index does not hold, when `scan` fixes every field of its
    /// own index by `==` alone, so that both windows come in id order, and reads records (a
    /// covering index reads none, so narrowing it would only add seeks).
    private static func narrowing<Index: DeclaredIndex>(
        _ scan: QueryPlan.IndexScan, for query: Query, indexes: [Index], ranges: FieldRanges
    ) -> QueryPlan.IndexScan? {
        guard scan.firstFieldValues == nil, scan.range == nil, !scan.backward, !scan.covering,
            !scan.index.multiValue, scan.equalities.count == scan.index.fields.count
        else { return nil }
        for declared in indexes {
            let index = declared.definition
            guard index.fields.count == 1, !index.multiValue, index != scan.index,
                !scan.index.fields.contains(where: { $0.name == index.fields[0].name }),
                let value = ranges[index.fields[0].name]?.equals
            else { continue }
            return QueryPlan.IndexScan(
                index: index, firstFieldValues: nil, equalities: [value], range: nil, backward: false)
        }
        return nil
    }

    /// The ids an `==` or `in` condition on the id field allows, intersected; `nil` when there is none.
    private static func fixedIDs(_ query: Query, idField: String) -> [Value]? {
        var ids: [Value]?
        for condition in query.conditions where condition.field == idField {
            let allowed: [Value]
            switch (condition.op, condition.value) {
            case (.equal, .array): continue
            case (.equal, let value): allowed = [value]
            case (.in, .array(let values)): allowed = values
            default: continue
            }
            ids = ids.map { current in current.filter { allowed.contains($0) } } ?? allowed
        }
        guard let ids else { return nil }
        var seen = Set<Value>()
        return ids.filter { seen.insert($0).inserted }
    }

    /// How well `index` serves `query`: 4 points per equality field, 2 for a range, 1 for the
    /// sort (plus 1 when the sort lets the limit stop the scan); `nil` when it serves nothing.
    private static func evaluate<Index: DeclaredIndex>(
        _ declared: Index,
        for query: Query,
        ranges: FieldRanges
    ) -> (score: Int, scan: QueryPlan.IndexScan, sorted: Bool)? {
        let index = declared.definition
        var equalities: [Value] = []
        equalities.reserveCapacity(index.fields.count)
        var range: ValueRange?
        // An `in` on the first field, with no range condition there: one seek per value.
        let firstFieldValues =
            ranges[index.fields[0].name] == nil ? scalarValues(in: query, field: index.fields[0].name) : nil
        for field in index.fields.dropFirst(firstFieldValues == nil ? 0 : 1) {
            if index.multiValue {
                // Different conditions may be met by different elements: use one condition's range.
                // Not `exists`: a document whose array is empty has only a *missing* entry.
                let ranges = query.conditions(on: field.name).filter { $0.op != .exists }.compactMap(\.range)
                if let equal = ranges.first(where: { $0.equals != nil }) {
                    equalities.append(equal.equals!)
                } else {
                    range = ranges.first
                }
                break
            }
            guard let fieldRange = ranges[field.name] else { break }
            if let value = fieldRange.equals {
                equalities.append(value)
                continue
            }
            range = fieldRange
            break
        }
        var scan = QueryPlan.IndexScan(
            index: index, firstFieldValues: firstFieldValues, equalities: equalities,
            range: range, backward: false, covering: declared.answersFromEntries)
        var sorted = false
        if !index.multiValue, firstFieldValues == nil,
            let backward = servesSort(index, query: query, prefix: equalities.count, hasRange: range != nil)
        {
            sorted = true
            scan.backward = backward
        }
        var score = equalities.count * 4 + (range == nil ? 0 : 2) + (firstFieldValues == nil ? 0 : 3)
        if sorted && !query.sort.isEmpty { score += query.limit == nil ? 1 : 2 }
        return score == 0 ? nil : (score, scan, sorted)
    }

    /// The distinct values of an `in` condition on `field` whose values are all scalars (an
    /// array or object value compares whole and has no single index entry), or `nil`.
    private static func scalarValues(in query: Query, field: String) -> [Value]? {
        for condition in query.conditions(on: field) where condition.op == .in {
            guard case .array(let values) = condition.value, !values.isEmpty,
                values.allSatisfy({ value in
                    if case .array = value { return false }
                    if case .object = value { return false }
                    return true
                })
            else { continue }
            return Array(Set(values)).sorted()
        }
        return nil
    }

    /// Whether scanning `index` after an equality prefix of `prefix` fields yields the query's
    /// sort order: `false` forward, `true` backward, `nil` when it does not.
    private static func servesSort(_ index: IndexDefinition, query: Query, prefix: Int, hasRange: Bool) -> Bool? {
        if query.sort.isEmpty { return nil }
        let fixed = index.fields.prefix(prefix)
        let keys = query.sort.filter { key in !fixed.contains { $0.name == key.field } }
        if keys.isEmpty { return query.sort.isEmpty ? nil : false }
        let remaining = Array(index.fields.dropFirst(prefix))
        guard keys.count <= remaining.count else { return nil }
        var backward: Bool?
        for (key, field) in zip(keys, remaining) {
            guard key.field == field.name else { return nil }
            let reversed = key.ascending == field.descending
            if let direction = backward, direction != reversed { return nil }
            backward = reversed
        }
        // A range on a field the sort does not start with would scramble the order.
        if hasRange && keys.first?.field != remaining.first?.name { return nil }
        return backward
    }
}

/// The range of each field that has conditions (`Query.range(on:)`), computed once per plan.
struct FieldRanges {
    /// Each field with conditions, and its range: one array, one allocation per plan.
    private var entries: [(field: String, range: ValueRange?)] = []

    /// One pass over the conditions, intersecting each field's ranges as ``/DataStoreCore/Query/range(on:)``
    /// does (a pass per field, and the list of fields, cost a third of planning a point query).
    init(_ query: Query) {
        entries.reserveCapacity(query.conditions.count)
        for condition in query.conditions {
            // Conditions are sorted by field, so a field's conditions are usually adjacent; a
            // query whose conditions were assigned in another order is still handled.
            let position: Int
            if let last = entries.indices.last, entries[last].field == condition.field {
                position = last
            } else if let earlier = entries.firstIndex(where: { $0.field == condition.field }) {
                position = earlier
            } else {
                entries.append((condition.field, nil))
                position = entries.count - 1
            }
            guard let range = condition.range else { continue }
            if let earlier = entries[position].range {
                entries[position].range = earlier.intersection(range)
            } else {
                entries[position].range = range
            }
        }
    }

    /// Whether some field whose conditions no value meets satisfies `predicate`.
    func hasEmptyField(where predicate: (String) -> Bool) -> Bool {
        for entry in entries where entry.range?.isEmpty == true && predicate(entry.field) { return true }
        return false
    }

    /// The range of `field`, or `nil` when no `==` or range condition names it.
    subscript(field: String) -> ValueRange? {
        entries.first { $0.field == field }?.range
    }
}
