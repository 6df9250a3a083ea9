import DataStoreCore
import DataStoreEngine

/// What one batch changed, per collection in the order first touched: the outbox's rows.
struct BatchChanges {
    private(set) var collections: [CollectionChanges] = []

    /// Adds what `operations` did, as their `outcomes` report.
    mutating func add(_ operations: [RowStatements], _ outcomes: [RowOutcome]) {
        for (row, outcome) in zip(operations, outcomes) {
            switch row.operation {
            case .insert(let written, let layout, _):
                append(written.id, to: layout.name, \.inserted)
            case .upsert(let written, let layout, _?):
                append(written.id, to: layout.name, \.updated)
            case .upsert(let written, let layout, nil):
                append(written.id, to: layout.name, outcome.replaced ? \.updated : \.inserted)
            case .remove(let id, _, let layout, _), .discard(let id, _, let layout):
                if outcome.removedRecord != nil { append(id, to: layout.name, \.removed) }
            case .check:
                break
            }
        }
    }

    private mutating func append(
        _ id: Value, to collection: String, _ list: WritableKeyPath<CollectionChanges, [Value]>
    ) {
        if let position = collections.firstIndex(where: { $0.collection == collection }) {
            collections[position][keyPath: list].append(id)
        } else {
            var changes = CollectionChanges(collection: collection)
            changes[keyPath: list].append(id)
            collections.append(changes)
        }
    }
}
