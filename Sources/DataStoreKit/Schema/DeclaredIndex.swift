/// An index as a store holds it, seen by the parts every backend shares: the planner and the
/// reconciliation of a declaration with what is stored.
package protocol DeclaredIndex {
    /// What the index orders documents by.
    var definition: IndexDefinition { get }
    /// Whether the application's last declaration of the collection named this index.
    var declared: Bool { get }
}

extension DeclaredIndex {
    /// The index's name.
    package var name: String { definition.name }
}

extension IndexDefinition: DeclaredIndex {
    /// The definition itself.
    package var definition: IndexDefinition { self }
    /// A bare definition counts as declared.
    package var declared: Bool { true }
}

extension IndexTable: DeclaredIndex {}
