import DataStoreCore

extension DataStoreError {
    /// The store's error for a server error met while doing `what`: `.network` when the server
    /// went away or cannot be reached (the store reconnects on the next call), else `.storage`
    /// with the SQLSTATE.
    static func postgres(_ error: PostgresError, _ what: String) -> DataStoreError {
        if error.isUnavailable {
            return DataStoreError(.network, "PostgreSQL is unavailable while \(what)", underlying: error)
        }
        return DataStoreError(.storage, "PostgreSQL refused \(what) (SQLSTATE \(error.code))", underlying: error)
    }
}
