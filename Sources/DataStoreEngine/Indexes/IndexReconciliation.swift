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

    package init(current: [Index], declared: [IndexDefinition], mode: Mode) {
        if case .dropping(let name) = mode {
            drop = current.filter { $0.name == name }
            return
        }
        for index in current {
            if let declaration = declared.first(where: { $0.name == index.name }) {
                if declaration != index.definition {
                    drop.append(index)
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

    /// Whether the stored schema stays as it is.
    package var changesNothing: Bool { drop.isEmpty && build.isEmpty && declaredChanges.isEmpty }
}
