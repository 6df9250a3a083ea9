/// What opening a collection does with a stored index its declaration leaves out.
///
/// An index can be added outside the application (`datastore index add`) or by an older
/// version of it, so leaving one out of a declaration is not taken as a request to delete data:
/// by default the index is kept, maintained by every write and used by queries, and reported
/// (`StoreCollection.undeclaredIndexes`, `StoreStatistics.Index.declared`, `datastore stats`).
/// It is dropped only when asked: `DataStore.dropIndex(named:from:)`, `datastore index drop`,
/// or a declaration made with ``drop``. So is an index the declaration defines otherwise under its
/// name (unique where it was not, other fields): under ``keep`` that is `.schemaMismatch` naming
/// both definitions; under ``drop`` the index is rebuilt as declared.
public enum UndeclaredIndexes: Sendable, Hashable {
    /// Keep every stored index the declaration leaves out, and report it (the default).
    case keep
    /// Drop every stored index the declaration leaves out, with its data, and rebuild each it
    /// defines otherwise: the declaration is the whole list.
    case drop
}
