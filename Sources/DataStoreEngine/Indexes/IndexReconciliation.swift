package import DataStoreCore

/// What reconciling a collection's stored indexes with a declaration changes.
package struct IndexReconciliation<Index: DeclaredIndex> {
    /// How the declaration is read.
    package typealias Mode = ReconciliationMode

    /// Stored indexes to drop, data and all: redefined under their name, or left out under `.drop`.
    package var drop: [Index] = []
    /// Definitions to build from the records.
    package var build: [IndexDefinition] = []
    /// Names of kept indexes whose `declared` flag changes, with its new value.
    package var declaredChanges: [String: Bool] = [:]
    /// Stored indexes the declaration defines otherwise under their name: the stored definition
    /// and the declared one (each also in ``drop`` and ``build``).
    package var redefined: [(stored: IndexDefinition, declared: IndexDefinition)] = []
    private let mode: Mode

    package init(current: [Index], declared: [IndexDefinition], mode: Mode) {
        self.mode = mode
        if case .dropping(let name) = mode {
            drop = current.filter { $0.name == name }
            return
        }
        for index in current {
            if let declaration = declared.first(where: { $0.name == index.name }) {
                if declaration != index.definition {
                    drop.append(index)
                    redefined.append((index.definition, declaration))
                } else if !index.declared {
                    declaredChanges[index.name] = true
                }
            } else if case .declaration(let policy) = mode {
                switch policy {
                case .drop: drop.append(index)
                case .keep where index.declared: declaredChanges[index.name] = false
                case .keep: break
                }
            }
        }
        build = declared.filter { definition in !current.contains { $0.definition == definition } }
    }

    /// Refuses a redefinition the declaration did not ask for: rebuilding an index drops its
    /// data, which a declaration that keeps what it leaves out (``UndeclaredIndexes/keep``) is
    /// never taken to ask.
    /// - Throws: ``/DataStoreCore/DataStoreError`` `.schemaMismatch` naming the index, both definitions and the ways on.
    package func checkRedefinitions(of collection: String) throws(DataStoreError) {
        guard case .declaration(.keep) = mode, let first = redefined.first else { return }
        throw DataStoreError(
            .schemaMismatch,
            "collection \(collection) has an index \(first.stored.name) stored as \(first.stored), but the declaration "
                + "says \(first.declared); drop it first (dropIndex(named:from:), datastore index drop) to redefine it, "
                + "or declare with undeclaredIndexes: .drop, which makes the declaration the whole list and rebuilds it"
        )
    }

    /// Whether the stored schema stays as it is.
    package var changesNothing: Bool { drop.isEmpty && build.isEmpty && declaredChanges.isEmpty }
}
