// A thin, hand-written door to libpq for the PostgreSQL floor: one connection, prepared
// statements with binary parameters and binary results, and pipelines that send a batch of
// statements before reading any answer. Nothing generic: what a careful C programmer would use.
import CPostgres

struct LibpqFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// The parameters of one statement, copied into one buffer (bytea and int8 in binary, text as C strings).
struct LibpqParameters {
    private(set) var storage: [UInt8] = []
    private(set) var offsets: [Int] = []
    private(set) var lengths: [Int32] = []
    private(set) var formats: [Int32] = []

    init() {
        storage.reserveCapacity(512)
    }

    mutating func bytes(_ value: [UInt8]) {
        offsets.append(storage.count)
        storage.append(contentsOf: value)
        lengths.append(Int32(value.count))
        formats.append(1)
    }

    mutating func text(_ value: String) {
        offsets.append(storage.count)
        storage.append(contentsOf: value.utf8)
        storage.append(0)
        lengths.append(0)
        formats.append(0)
    }

    /// Calls `body` with libpq's parallel arrays of values, lengths and formats.
    func withArrays<R>(
        _ body: (Int32, [UnsafePointer<CChar>?], [Int32], [Int32]) throws -> R
    ) rethrows -> R {
        try storage.withUnsafeBytes { buffer in
            let values: [UnsafePointer<CChar>?] = offsets.map {
                (buffer.baseAddress! + $0).assumingMemoryBound(to: CChar.self)
            }
            return try body(Int32(offsets.count), values, lengths, formats)
        }
    }
}

/// One statement of a pipeline: plain SQL without parameters, or a prepared statement.
enum LibpqStatement {
    case sql(String)
    case prepared(String, LibpqParameters)
}

/// A result in binary format, freed when the last reference goes.
final class LibpqResult {
    private let handle: OpaquePointer
    /// The SQL of each prepared statement, for running it unprepared too.
    private var statements: [String: String] = [:]

    init(_ handle: OpaquePointer) { self.handle = handle }

    deinit { PQclear(handle) }

    var rowCount: Int { Int(PQntuples(handle)) }

    /// The bytes at `row`, `column`, valid while the result lives.
    func bytes(_ row: Int, _ column: Int) -> UnsafeRawBufferPointer {
        let length = Int(PQgetlength(handle, Int32(row), Int32(column)))
        return UnsafeRawBufferPointer(start: PQgetvalue(handle, Int32(row), Int32(column)), count: length)
    }
}

final class LibpqConnection: @unchecked Sendable {
    // @unchecked Sendable: one thread uses a connection at a time (each saver thread opens its
    // own; the read workloads run one operation at a time).
    private let handle: OpaquePointer
    /// The SQL of each prepared statement, for running it unprepared too.
    private var statements: [String: String] = [:]

    /// Connects to `conninfo` (key=value pairs; what is missing comes from the `PG*` variables).
    init(_ conninfo: String) throws {
        guard let handle = PQconnectdb(conninfo) else { throw LibpqFailure("libpq could not allocate a connection") }
        guard PQstatus(handle) == CONNECTION_OK else {
            let message = String(cString: PQerrorMessage(handle))
            PQfinish(handle)
            throw LibpqFailure("cannot connect to PostgreSQL (\(conninfo)): \(message)")
        }
        PQsetNoticeProcessor(handle, { _, _ in }, nil)
        self.handle = handle
    }

    func close() { PQfinish(handle) }

    /// Runs plain SQL (no parameters) and returns its rows in text format.
    @discardableResult
    func execute(_ sql: String) throws -> LibpqResult {
        try check(PQexec(handle, sql), sql)
    }

    /// The first column of the first row of `sql`, as text.
    func value(_ sql: String) throws -> String {
        let result = try execute(sql)
        guard result.rowCount > 0 else { return "" }
        return String(decoding: result.bytes(0, 0), as: UTF8.self)
    }

    /// Prepares `sql` as `name`, its parameter types inferred by the server.
    func prepare(_ name: String, _ sql: String) throws {
        try check(PQprepare(handle, name, sql, 0, nil), sql)
        statements[name] = sql
    }

    /// Runs the prepared statement `name`, results in binary format; `prepared` false sends its
    /// SQL to be parsed and planned again (`PQexecParams`), as the store sends its statements.
    @discardableResult
    func run(_ name: String, _ parameters: LibpqParameters = LibpqParameters(), prepared: Bool = true) throws
        -> LibpqResult
    {
        let sql = prepared ? nil : statements[name]
        let result = parameters.withArrays { count, values, lengths, formats in
            if let sql {
                PQexecParams(handle, sql, count, nil, values, lengths, formats, 1)
            } else {
                PQexecPrepared(handle, name, count, values, lengths, formats, 1)
            }
        }
        return try check(result, name)
    }

    /// Sends every statement, then one sync, then reads every answer: one round trip for the lot.
    /// Throws the first failure (the server skips the rest up to the sync).
    func pipeline(_ statements: [LibpqStatement]) throws {
        guard PQenterPipelineMode(handle) == 1 else { throw LibpqFailure("cannot enter pipeline mode") }
        defer { _ = PQexitPipelineMode(handle) }
        for statement in statements {
            let sent: Int32
            switch statement {
            case .sql(let sql):
                sent = PQsendQueryParams(handle, sql, 0, nil, nil, nil, nil, 1)
            case .prepared(let name, let parameters):
                sent = parameters.withArrays { count, values, lengths, formats in
                    PQsendQueryPrepared(handle, name, count, values, lengths, formats, 1)
                }
            }
            guard sent == 1 else { throw LibpqFailure("sending: \(String(cString: PQerrorMessage(handle)))") }
        }
        guard PQpipelineSync(handle) == 1 else { throw LibpqFailure("pipeline sync failed") }
        var failure: LibpqFailure?
        for _ in statements {
            guard let result = PQgetResult(handle) else { throw LibpqFailure("the pipeline ended early") }
            while let extra = PQgetResult(handle) { PQclear(extra) }
            let status = PQresultStatus(result)
            if status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK && failure == nil {
                failure = LibpqFailure("in a pipeline: \(String(cString: PQresultErrorMessage(result)))")
            }
            PQclear(result)
        }
        guard let sync = PQgetResult(handle), PQresultStatus(sync) == PGRES_PIPELINE_SYNC else {
            throw LibpqFailure("the pipeline sync was not answered")
        }
        PQclear(sync)
        if let failure { throw failure }
    }

    @discardableResult
    private func check(_ result: OpaquePointer?, _ what: String) throws -> LibpqResult {
        guard let result else { throw LibpqFailure("\(what): \(String(cString: PQerrorMessage(handle)))") }
        let status = PQresultStatus(result)
        guard status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK else {
            let message = String(cString: PQresultErrorMessage(result))
            PQclear(result)
            throw LibpqFailure("\(what): \(message)")
        }
        return LibpqResult(result)
    }
}
