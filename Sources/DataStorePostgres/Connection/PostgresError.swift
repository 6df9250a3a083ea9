/// An error reported by libpq or the server, catchable by its SQLSTATE ``Code``.
package struct PostgresError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The SQLSTATE of the error (PostgreSQL's appendix A), or one of class 08 for a connection
    /// that libpq lost or could not make.
    package struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        package let rawValue: String
        package init(rawValue: String) { self.rawValue = rawValue }

        /// A UNIQUE constraint or primary key refused a row.
        package static let uniqueViolation = Code(rawValue: "23505")
        /// The server could not serialize the transaction: retry it.
        package static let serializationFailure = Code(rawValue: "40001")
        /// The server broke a deadlock by failing this transaction: retry it.
        package static let deadlockDetected = Code(rawValue: "40P01")
        /// The connection could not be made.
        package static let connectionFailure = Code(rawValue: "08006")
        /// The connection could not be established.
        package static let cannotConnect = Code(rawValue: "08001")
        /// The table does not exist.
        package static let undefinedTable = Code(rawValue: "42P01")
        package static let undefinedColumn = Code(rawValue: "42703")
        /// No prepared statement has the name given (the session lost it).
        package static let invalidStatementName = Code(rawValue: "26000")
        /// An object the statement names does not exist, such as an unknown setting.
        package static let undefinedObject = Code(rawValue: "42704")
        /// A feature the server does not support; also "cached plan must not change result type".
        package static let featureNotSupported = Code(rawValue: "0A000")
        package static let undefinedFunction = Code(rawValue: "42883")
        /// The store's own code, in the connection class: the server did not connect or answer
        /// within the bound the store was given (``ConnectionTimeouts``).
        package static let clientTimeout = Code(rawValue: "08T01")
        /// The database the URL names does not exist.
        package static let invalidCatalogName = Code(rawValue: "3D000")
        /// A value is past what the server holds (a `jsonb` string over 255 MiB, say).
        package static let programLimitExceeded = Code(rawValue: "54000")

        package var description: String { rawValue }
    }

    /// The SQLSTATE.
    package let code: Code
    /// The server's or libpq's message.
    package let message: String
    /// The constraint the server names, for constraint violations.
    package let constraint: String?

    package init(_ code: Code, _ message: String, constraint: String? = nil) {
        self.code = code
        self.message = message
        self.constraint = constraint
    }

    /// Whether retrying the whole transaction may succeed (40001, 40P01).
    package var isRetryable: Bool { code == .serializationFailure || code == .deadlockDetected }

    /// Whether the server went away or could not be reached (class 08, or the shutdown codes of
    /// class 57P), so that the connection must be made again.
    package var isUnavailable: Bool {
        code.rawValue.hasPrefix("08") || ["57P01", "57P02", "57P03"].contains(code.rawValue)
    }

    /// Whether the statement named a column or table that is not there.
    package var namesMissingColumnOrTable: Bool { code == .undefinedColumn || code == .undefinedTable }

    package var description: String { "PostgreSQL \(code): \(message)" }
}
