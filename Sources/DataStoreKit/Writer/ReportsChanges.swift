/// A change set's result that reports what it changed: what the writer records in the change log.
protocol ReportsChanges: Sendable {
    var changes: [CollectionChanges] { get }
}
