// The PostgreSQL group-commit rows' backends.

/// The PostgreSQL group-commit backends' names, as printed.
enum PostgresCommitBackend {
    static let dataStoreKit = "DSK on PG"
    static let dataStoreKitOnePerSave = "DSK on PG 1 txn/save"
    static let libpqOnePerSave = "libpq 1 txn/save, own conn"
}
