import DataStoreCore

extension DataStoreError {
    /// The store's error for a server error met while doing `what`: `.timedOut` when a bound ran
    /// out, `.notFound` for a database that does not exist, `.network` when the server went away,
    /// cannot be reached or refuses the credentials (the store reconnects on the next call), else
    /// `.storage` with the SQLSTATE.
    static func postgres(_ error: PostgresError, _ what: String) -> DataStoreError {
        if error.code == .clientTimeout {
            return DataStoreError(.timedOut, "\(error.message) while \(what)", underlying: error)
        }
        if error.code == .invalidCatalogName {
            return DataStoreError(.notFound, "PostgreSQL has no such database while \(what)", underlying: error)
        }
        if error.code.rawValue.hasPrefix("28") {
            return DataStoreError(.network, "PostgreSQL refused the credentials while \(what)", underlying: error)
        }
        if error.isUnavailable {
            return DataStoreError(.network, "PostgreSQL is unavailable while \(what)", underlying: error)
        }
        return DataStoreError(.storage, "PostgreSQL refused \(what) (SQLSTATE \(error.code))", underlying: error)
    }
}
