import DataStoreEngine
/// A change set's result that reports what it changed: what the writer records in the change log.
protocol ReportsChanges: Sendable {
    var changes: [CollectionChanges] { get }
}

/// The changes `result`, a change set's result, reports; `nil` when it reports none.
///
/// The store's own reports are cast to their types first: a cast to the protocol looks up the
/// conformance, several times the cost, and the writer asks this of every change set it commits.
func reportedChanges(_ result: any Sendable) -> [CollectionChanges]? {
    if let report = result as? ContextSaveReport { return report.changes }
    if let report = result as? WriteReport { return report.changes }
    if let report = result as? RemoveReport { return report.changes }
    if let report = result as? UpdateReport { return report.changes }
    return (result as? any ReportsChanges)?.changes
}
