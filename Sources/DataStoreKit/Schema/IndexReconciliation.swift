/// What reconciling a collection's stored indexes with a declaration changes.
struct IndexReconciliation {
    /// How the declaration is read.
    enum Mode {
        /// The application's declaration of the collection: indexes it leaves out are handled
        /// by the policy, and the stored ones it names are declared again.
        case declaration(UndeclaredIndexes)
        /// Indexes added to what is stored (`addIndex`): every other index is left as it is.
        case adding
        /// The one stored index of this name dropped (`dropIndex`), every other left as it is.
        case dropping(String)
    }

    /// Stored indexes to drop, data and all: redefined under their name, or left out under `.drop`.
    var drop: [IndexTable] = []
    /// Definitions to build from the records.
    var build: [IndexDefinition] = []
    /// Names of kept indexes whose `declared` flag changes, with its new value.
    var declaredChanges: [String: Bool] = [:]

    init(current: [IndexTable], declared: [IndexDefinition], mode: Mode) {
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
    var changesNothing: Bool { drop.isEmpty && build.isEmpty && declaredChanges.isEmpty }
}
