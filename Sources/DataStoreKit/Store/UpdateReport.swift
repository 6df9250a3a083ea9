import DataStoreEngine
/// What an update reports: its change, and the document as stored (returned to the caller).
struct UpdateReport: ReportsChanges {
    var changes: [CollectionChanges]
    var stored: Document
}
