import DataStoreCore
import Synchronization

/// What the planner chose for queries of one shape — the same fields, operators and kinds of
/// value, the same sort, a limit or none — so that the next query of that shape evaluates only
/// that choice instead of every index, as a prepared statement is planned once for its SQL text.
///
/// Planning from scratch builds ranges for every field and a score for every index, a large part
/// of a point query's cost when a collection has several indexes. With a
/// choice remembered, the planner still computes what depends on this query's values — a
/// contradiction makes the plan empty, ids fixed by the id field are looked up directly — and
/// re-scores the remembered index for these values; if its score changed (two range conditions
/// that meet in one value make an equality), it plans afresh. So a remembered choice is never
/// applied where it no longer fits, and at worst a rare value could have made another index
/// score higher; the plan is still right, since every candidate is re-checked against every
/// condition. Each collection keeps its own choices and forgets them all whenever its indexes
/// change (declared, built, dropped).
package final class PlanCache: Sendable {
    /// The parts of a query that decide its plan, without the values.
    struct Shape: Hashable, Sendable {
        private let conditions: [ConditionShape]
        private let sort: [SortKey]
        private let limited: Bool

        init(_ query: Query) {
            conditions = query.conditions.map { ConditionShape(field: $0.field, op: $0.op, kind: ValueKind($0.value)) }
            sort = query.sort
            limited = query.limit != nil
        }

        /// Hashes the shape's outline — field name lengths, operators, kinds, the sort's length —
        /// rather than every name's bytes: equality still compares everything, and the table
        /// is small, so the rare collision costs less than hashing the names on every query.
        func hash(into hasher: inout Hasher) {
            hasher.combine(conditions.count)
            for condition in conditions {
                hasher.combine(condition.field.utf8.count)
                hasher.combine(condition.op)
                hasher.combine(condition.kind)
            }
            hasher.combine(sort.count)
            hasher.combine(limited)
        }
    }

    /// A condition without its value.
    private struct ConditionShape: Hashable, Sendable {
        let field: String
        let op: Operator
        let kind: ValueKind
    }

    /// What the planner distinguishes in a value: its type, and for an array whether it holds
    /// only scalars (an `in` over scalars seeks each value; otherwise it cannot).
    private enum ValueKind: Hashable, Sendable {
        case null, bool, number, string, bytes, object, scalarArray, otherArray

        init(_ value: Value) {
            switch value {
            case .null: self = .null
            case .bool: self = .bool
            case .int, .double: self = .number
            case .string: self = .string
            case .bytes: self = .bytes
            case .object: self = .object
            case .array(let elements):
                let scalars =
                    !elements.isEmpty
                    && elements.allSatisfy { element in
                        switch element {
                        case .array, .object: return false
                        default: return true
                        }
                    }
                self = scalars ? .scalarArray : .otherArray
            }
        }
    }

    /// A remembered choice.
    enum Choice: Sendable, Equatable {
        /// The index of this name, which scored `score`.
        case index(name: String, score: Int)
        /// No index: the records themselves (an id range, or a full scan).
        case records
    }

    /// Shapes remembered per collection, and dictionary shapes (which each store keeps beside
    /// its cache, under its ``generation``), before all are forgotten: queries built from user
    /// input could otherwise grow the tables without bound.
    package static let capacity = 256

    /// The choices, and the generation they belong to.
    private struct State {
        var generation = 0
        var table: [Shape: Choice] = [:]
    }

    private let state = Mutex(State())
    /// ``State/generation``, readable without the lock (a plan reads it before its index list).
    private let currentGeneration = Atomic<Int>(0)

    /// An empty cache.
    package init() {}

    /// Changes whenever the choices are forgotten. Read it before the index list a plan uses,
    /// and pass it to ``remember(_:for:generation:)``: a choice made from an index list that
    /// changed meanwhile is then dropped instead of outliving the change.
    package var generation: Int { currentGeneration.load(ordering: .acquiring) }

    /// The choice remembered for `shape`, if any.
    func choice(for shape: Shape) -> Choice? { state.withLock { $0.table[shape] } }

    /// Remembers `choice` for `shape`, unless the choices were forgotten since `generation`.
    func remember(_ choice: Choice, for shape: Shape, generation: Int) {
        state.withLock { state in
            guard state.generation == generation else { return }
            if state.table.count >= Self.capacity { state.table.removeAll(keepingCapacity: true) }
            state.table[shape] = choice
        }
    }

    /// How many shapes are remembered (for tests).
    var count: Int { state.withLock { $0.table.count } }

    /// Forgets every choice (the indexes changed), and with the new generation every dictionary
    /// shape remembered under the old one.
    package func forgetAll() {
        state.withLock { state in
            state.generation += 1
            currentGeneration.store(state.generation, ordering: .releasing)
            state.table.removeAll()
        }
    }
}
