internal import CPostgres

/// One connection to a PostgreSQL server, used by one thread at a time.
///
/// The corresponding C type is `PGconn`. libpq's documentation: "libpq is reentrant and
/// thread-safe … two threads must not attempt to manipulate the same PGconn object at the same
/// time": the store's pool and writer hand each connection to one caller at a time.
package final class Connection: @unchecked Sendable {
    /// The libpq handle, for this type and its extensions only.
    let handle: OpaquePointer
    /// The connection string or URL it was made from, for messages.
    package let target: String
    /// The statements prepared in this session, for ``executePrepared(_:_:)``.
    var statements: StatementCache
    /// The bounded wait for this connection's answers on the caller's thread, made on first use.
    var socketWait: SocketWait?
    /// The session settings applied at each connect (``apply(_:)``).
    private let settings: [(name: String, value: String)]
    /// How long it waits for the server.
    let timeouts: ConnectionTimeouts
    /// Whether a wait for the server ran out with a statement in flight: the session is in an
    /// unknown state, and is made anew before any further use.
    var abandoned = false

    /// Connects to `conninfo` (a `postgresql://` URL or `key=value` pairs; an empty string
    /// means the `PG*` environment variables), keeping up to `statementCapacity` prepared
    /// statements, waiting as `timeouts` allow, and applies `settings` to the session (again
    /// after each reconnect).
    ///
    /// The corresponding C functions are `PQconnectStartParams` and `PQconnectPoll`.
    /// - Throws: ``PostgresError`` of class 08 when the server cannot be reached, refuses, or does
    ///   not answer in time; the server's SQLSTATE when it sent one (3D000: no such database).
    package init(
        _ conninfo: String, statementCapacity: Int = 256, settings: [(name: String, value: String)] = [],
        timeouts: ConnectionTimeouts = ConnectionTimeouts()
    ) throws(PostgresError) {
        statements = StatementCache(capacity: statementCapacity)
        self.settings = settings
        self.timeouts = timeouts
        let started = "dbname".withCString { keyword in
            conninfo.withCString { value in
                let keywords: [UnsafePointer<CChar>?] = [keyword, nil]
                let values: [UnsafePointer<CChar>?] = [value, nil]
                // expand_dbname: the value is a URL or key=value pairs, as PQconnectdb takes.
                return PQconnectStartParams(keywords, values, 1)
            }
        }
        guard let handle = started else {
            throw PostgresError(.cannotConnect, "libpq could not allocate a connection")
        }
        self.handle = handle
        self.target = conninfo.isEmpty ? "the server the PG* variables name" : Self.withoutPassword(conninfo)
        // From here on, deinit frees the handle whatever is thrown.
        try open { PQconnectPoll($0) }
        // Notices ("relation already exists, skipping") are not errors: libpq would print them.
        PQsetNoticeProcessor(handle, { _, _ in }, nil)
        try apply(settings)
    }

    deinit { PQfinish(handle) }

    /// Whether the connection is still usable.
    package var isHealthy: Bool { !abandoned && PQstatus(handle) == CONNECTION_OK }

    /// Whether the connection is inside a transaction block (or a failed one).
    package var isInTransaction: Bool {
        let status = PQtransactionStatus(handle)
        return status == PQTRANS_INTRANS || status == PQTRANS_INERROR
    }

    /// Makes the connection again after the server went away (or a wait for it ran out).
    ///
    /// The corresponding C functions are `PQresetStart` and `PQresetPoll`.
    /// - Throws: ``PostgresError`` of class 08 when the server is still unreachable.
    package func reconnect() throws(PostgresError) {
        statements.removeAll()
        socketWait?.reset()
        abandoned = false
        guard PQresetStart(handle) == 1 else {
            throw PostgresError(.cannotConnect, "cannot reconnect to \(target): \(Self.message(handle))")
        }
        try open { PQresetPoll($0) }
        try apply(settings)
    }

    /// Completes a connection attempt with `poll`, reporting errors verbosely meanwhile (so that a
    /// refusal carries its SQLSTATE), then leaves the connection non-blocking: every wait is
    /// bounded by ``waitForSocket(writing:until:)``.
    private func open(_ poll: (OpaquePointer) -> PostgresPollingStatusType) throws(PostgresError) {
        PQsetErrorVerbosity(handle, PQERRORS_VERBOSE)
        defer { PQsetErrorVerbosity(handle, PQERRORS_DEFAULT) }
        try establish(poll)
        guard PQsetnonblocking(handle, 1) == 0 else { throw lost("cannot make the connection non-blocking") }
    }

    /// Runs one statement with its parameters bound (never spliced into `sql`), results in
    /// binary format.
    ///
    /// The corresponding C function is `PQsendQueryParams`.
    /// - Throws: ``PostgresError`` with the server's SQLSTATE, or of class 08 when the
    ///   connection is lost or the answer does not come in time.
    @discardableResult
    package func execute(_ sql: String, _ parameters: [SQLParameter] = []) throws(PostgresError) -> QueryResult {
        try runStatement("a statement") {
            Self.withParameters(parameters) { count, values, lengths, formats in
                PQsendQueryParams(handle, sql, count, nil, values, lengths, formats, 1)
            }
        }
    }

    /// Runs `sql`, which may hold several statements and no parameters, in one round trip; the
    /// result is the last statement's, and the first that fails stops the rest.
    ///
    /// The corresponding C function is `PQsendQuery`.
    @discardableResult
    package func executeScript(_ sql: String) throws(PostgresError) -> QueryResult {
        try runStatement("a script") { PQsendQuery(handle, sql) }
    }

    /// Checks a result: the rows or command status, or the error it carries.
    func check(_ result: OpaquePointer?) throws(PostgresError) -> QueryResult {
        guard let result else { throw lost("no result") }
        let status = PQresultStatus(result)
        if status == PGRES_TUPLES_OK || status == PGRES_COMMAND_OK { return QueryResult(result) }
        let state = PQresultErrorField(result, Self.field("C")).map { String(cString: $0) }
        let primary = PQresultErrorField(result, Self.field("M")).map { String(cString: $0) }
        let constraint = PQresultErrorField(result, Self.field("n")).map { String(cString: $0) }
        let text = String(cString: PQresultErrorMessage(result))
        PQclear(result)
        guard let state, isHealthy else { throw lost(primary ?? text) }
        throw PostgresError(.init(rawValue: state), primary ?? text, constraint: constraint)
    }

    /// The error for a connection that went away.
    func lost(_ what: String) -> PostgresError {
        let detail = Self.message(handle)
        return PostgresError(
            .connectionFailure, "connection to \(target) lost: \(what)\(detail.isEmpty ? "" : " (\(detail))")")
    }

    /// A diagnostic field code (libpq's `PG_DIAG_*` character macros, which Swift does not import).
    private static func field(_ code: Unicode.Scalar) -> Int32 { Int32(code.value) }

    static func message(_ handle: OpaquePointer) -> String {
        String(cString: PQerrorMessage(handle)).trimmingTrailingWhitespace()
    }

    /// A URL without its password, for messages.
    static func withoutPassword(_ target: String) -> String {
        guard let scheme = target.firstRange(of: "://"), let at = target[scheme.upperBound...].firstIndex(of: "@")
        else {
            return target
        }
        let credentials = target[scheme.upperBound..<at]
        guard let colon = credentials.firstIndex(of: ":") else { return target }
        return String(target[..<colon]) + ":***" + String(target[at...])
    }

    /// Calls `body` with `parameters` laid out as libpq wants them: values, lengths and formats
    /// (bytes in binary format, the rest in text format), in memory allocated for the call alone.
    static func withParameters<R>(
        _ parameters: [SQLParameter],
        _ body: (
            Int32, UnsafePointer<UnsafePointer<CChar>?>?, UnsafePointer<Int32>?, UnsafePointer<Int32>?
        ) -> R
    ) -> R {
        // Integers are written as decimal text straight into the storage: no `String` per call.
        var size = 0
        for parameter in parameters {
            switch parameter {
            case .text(let text): size += text.utf8.count + 1
            case .int: size += maxDecimalDigits + 2
            case .bytes(let bytes): size += bytes.count
            case .null: break
            }
        }
        let count = parameters.count
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: max(1, size)) { storage in
            withUnsafeTemporaryAllocation(of: UnsafePointer<CChar>?.self, capacity: max(1, count)) { values in
                withUnsafeTemporaryAllocation(of: Int32.self, capacity: max(1, 2 * count)) { numbers in
                    var offset = 0
                    for (index, parameter) in parameters.enumerated() {
                        let start = UnsafeRawPointer(storage.baseAddress! + offset).assumingMemoryBound(to: CChar.self)
                        switch parameter {
                        case .text(var text):
                            offset += text.withUTF8 { copy($0, to: storage, at: offset) }
                            storage[offset] = 0
                            offset += 1
                            (values[index], numbers[index], numbers[count + index]) = (start, 0, 0)
                        case .int(let value):
                            offset += writeDecimal(value, to: storage, at: offset)
                            storage[offset] = 0
                            offset += 1
                            (values[index], numbers[index], numbers[count + index]) = (start, 0, 0)
                        case .bytes(let bytes):
                            offset += bytes.withUnsafeBufferPointer { copy($0, to: storage, at: offset) }
                            (values[index], numbers[index], numbers[count + index]) = (start, Int32(bytes.count), 1)
                        case .null:
                            (values[index], numbers[index], numbers[count + index]) = (nil, 0, 0)
                        }
                    }
                    let lengths = UnsafePointer(numbers.baseAddress!)
                    return body(Int32(count), UnsafePointer(values.baseAddress!), lengths, lengths + count)
                }
            }
        }
    }

    /// The most decimal digits an `Int64` has (`Int64.min` also takes a sign).
    private static let maxDecimalDigits = 19

    /// Writes `value` in decimal (as `String(value)` spells it) into `storage` at `offset`;
    /// returns how many bytes.
    private static func writeDecimal(_ value: Int64, to storage: UnsafeMutableBufferPointer<UInt8>, at offset: Int)
        -> Int
    {
        var magnitude = value.magnitude
        var digits = 0
        repeat {
            digits += 1
            magnitude /= 10
        } while magnitude > 0
        let sign = value < 0 ? 1 : 0
        if sign == 1 { storage[offset] = UInt8(ascii: "-") }
        magnitude = value.magnitude
        for position in stride(from: offset + sign + digits - 1, through: offset + sign, by: -1) {
            storage[position] = UInt8(ascii: "0") + UInt8(magnitude % 10)
            magnitude /= 10
        }
        return sign + digits
    }

    /// Copies `bytes` into `storage` at `offset`; returns how many.
    private static func copy(
        _ bytes: UnsafeBufferPointer<UInt8>, to storage: UnsafeMutableBufferPointer<UInt8>, at offset: Int
    ) -> Int {
        if let base = bytes.baseAddress { (storage.baseAddress! + offset).update(from: base, count: bytes.count) }
        return bytes.count
    }
}

extension String {
    fileprivate func trimmingTrailingWhitespace() -> String {
        var text = self
        while let last = text.last, last.isWhitespace { text.removeLast() }
        return text
    }
}
