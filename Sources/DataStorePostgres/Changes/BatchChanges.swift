import DataStoreCore
import DataStoreEngine

/// What one batch changed, per collection in the order first touched, each id once as what the
/// batch did to it overall (``/DataStoreEngine/NetChanges``): the outbox's rows.
struct BatchChanges {
    private var writes = NetChanges()

    /// The changes per collection.
    var collections: [CollectionChanges] { writes.changes }

    /// Adds what `operations` did, as their `outcomes` report.
    mutating func add(_ operations: [RowStatements], _ outcomes: [RowOutcome]) {
        for (row, outcome) in zip(operations, outcomes) {
            switch row.operation {
            case .insert(let written, let layout, _):
                writes.note(.inserted, written.id, in: layout.name)
            case .upsert(let written, let layout, _?):
                writes.note(.updated, written.id, in: layout.name)
            case .upsert(let written, let layout, nil):
                writes.note(outcome.replaced ? .updated : .inserted, written.id, in: layout.name)
            case .remove(let id, _, let layout, _), .discard(let id, _, let layout):
                if outcome.removedRecord != nil { writes.note(.removed, id, in: layout.name) }
            case .check:
                break
            }
        }
    }
}
