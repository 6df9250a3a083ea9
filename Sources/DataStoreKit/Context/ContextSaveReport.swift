import DataStoreEngine
/// What a context's save reports to observers.
struct ContextSaveReport: ReportsChanges {
    var changes: [CollectionChanges]
}
