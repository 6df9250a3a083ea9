/// DataStorePostgres: the store on PostgreSQL (and the engines that speak its protocol).
///
/// The model types (`Value`, `ObjectCoder`, `ModelProtocol`, `Query`, `DataStoreError`) and what
/// every store shares (`IndexDefinition`, `CommitID`, `ConflictPolicy`, …) are re-exported, so
/// `import DataStorePostgres` is the one import.
@_exported public import DataStoreCore
@_exported public import DataStoreEngine
