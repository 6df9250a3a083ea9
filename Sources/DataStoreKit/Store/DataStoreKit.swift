/// DataStoreKit: the LMDB store — collections, secondary indexes, the query planner, contexts and the writer.
///
/// The model types a user names with the store (`Value`, `ObjectCoder`, `ModelProtocol`, `Query`, `DataStoreError`)
/// live in DataStoreCore, which the REST model shares; re-exported so `import DataStoreKit` is the one import.
@_exported public import DataStoreCore
/// What every store shares (index definitions, the change feed's types, conflict policies,
/// integrity problems), re-exported for the same reason.
@_exported public import DataStoreEngine
