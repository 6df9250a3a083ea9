/// An index as a store holds it, seen by the parts every backend shares: the planner and the
/// reconciliation of a declaration with what is stored.
package protocol DeclaredIndex {
    /// What the index orders documents by.
    var definition: IndexDefinition { get }
    /// Whether the application's last declaration of the collection named this index.
    var declared: Bool { get }
    /// Whether the store answers from the index's entries without reading records (a covering
    /// index on a store that keeps the copies), so the plan can say so.
    var answersFromEntries: Bool { get }
}

extension DeclaredIndex {
    /// The index's name.
    package var name: String { definition.name }
    /// A store that keeps no copies in its index entries reads the records.
    package var answersFromEntries: Bool { false }
}

extension IndexDefinition: DeclaredIndex {
    /// The definition itself.
    package var definition: IndexDefinition { self }
    /// A bare definition counts as declared.
    package var declared: Bool { true }
}
