/// DataStoreREST: the model protocol over a REST API (`Restify`).
///
/// The model types it speaks (`Value`, `ObjectCoder`, `ModelProtocol`, `DataStoreError`) live in DataStoreCore;
/// re-exported so `import DataStoreREST` is the one import.
@_exported public import DataStoreCore
