/// How a declaration is read when it is reconciled with the stored indexes.
package enum ReconciliationMode: Sendable {
    /// The application's declaration of the collection: indexes it leaves out are handled
    /// by the policy, and the stored ones it names are declared again.
    case declaration(UndeclaredIndexes)
    /// Indexes added to what is stored (`addIndex`): every other index is left as it is.
    case adding
    /// The one stored index of this name dropped (`dropIndex`), every other left as it is.
    case dropping(String)
}
