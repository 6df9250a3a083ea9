internal import CPostgres

/// The rows of one statement, in binary format, freed when the last reference goes.
///
/// The corresponding C type is `PGresult`; values are borrowed from it, never copied unless asked.
package final class QueryResult {
    private let handle: OpaquePointer

    init(_ handle: OpaquePointer) { self.handle = handle }

    deinit { PQclear(handle) }

    /// The number of rows.
    package var rowCount: Int { Int(PQntuples(handle)) }

    /// The number of rows the statement changed (`UPDATE`, `DELETE`, `INSERT`).
    package var affectedRows: Int { Int(String(cString: PQcmdTuples(handle))) ?? 0 }

    /// Whether the value at `row`, `column` is `NULL`.
    package func isNull(_ row: Int, _ column: Int) -> Bool {
        PQgetisnull(handle, Int32(row), Int32(column)) == 1
    }

    /// Calls `body` with the bytes at `row`, `column` (`nil` for `NULL`), valid only inside it.
    package func withBytes<R>(_ row: Int, _ column: Int, _ body: (UnsafeRawBufferPointer?) throws -> R) rethrows -> R {
        if isNull(row, column) { return try body(nil) }
        let length = Int(PQgetlength(handle, Int32(row), Int32(column)))
        let start = UnsafeRawPointer(PQgetvalue(handle, Int32(row), Int32(column)))
        return try body(UnsafeRawBufferPointer(start: start, count: length))
    }

    /// The bytes at `row`, `column` (empty for `NULL`), where libpq holds them: valid only while
    /// this result lives, which the caller must ensure.
    package func unsafeBytes(_ row: Int, _ column: Int) -> UnsafeRawBufferPointer {
        let length = Int(PQgetlength(handle, Int32(row), Int32(column)))
        return UnsafeRawBufferPointer(start: PQgetvalue(handle, Int32(row), Int32(column)), count: length)
    }

    /// The bytes at `row`, `column`, or `nil` for `NULL`.
    package func bytes(_ row: Int, _ column: Int) -> [UInt8]? {
        withBytes(row, column) { $0.map(Array.init) }
    }

    /// The `int8` (or `int4`, `xid8`) at `row`, `column` in binary format, or `nil` for `NULL`.
    package func int(_ row: Int, _ column: Int) -> Int64? {
        withBytes(row, column) { bytes -> Int64? in
            guard let bytes, bytes.count == 8 || bytes.count == 4 else { return nil }
            var value: Int64 = bytes.count == 4 && bytes[0] & 0x80 != 0 ? -1 : 0
            for byte in bytes { value = value << 8 | Int64(byte) }
            return value
        }
    }

    /// The text at `row`, `column`, or `nil` for `NULL`.
    package func text(_ row: Int, _ column: Int) -> String? {
        withBytes(row, column) { $0.map { String(decoding: $0, as: UTF8.self) } }
    }
}
