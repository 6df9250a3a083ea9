import DataStoreCore
import DataStoreKit
import Testing

@testable import DataStorePostgres

/// Statement texts found by a precomputed hash and by a shape's number, without a server.
@Suite("PostgreSQL statement texts")
struct StatementTextTests {
    @Test("texts are equal exactly when their SQL is, and hash alike when equal")
    func textEquality() {
        let a = SQLText("SELECT 1"), same = SQLText("SELECT " + "1"), other = SQLText("SELECT 2")
        #expect(a == same && a.hashValue == same.hashValue)
        #expect(a != other)
        var cache = StatementCache(capacity: 4)
        cache.insert(a, name: "dsk_p1")
        #expect(cache.name(of: same) == "dsk_p1")
        #expect(cache.name(of: other) == nil)
    }

    @Test("every candidate statement shape has its own number")
    func shapeNumbers() {
        let sources: [StatementShape.Source] =
            [.ids] + (0..<4).map { .column($0) } + (0..<4).map { .sideTable($0) }
        var codes = Set<Int>()
        var count = 0
        for source in sources {
            for lower in [StatementShape.Lower.none, .atLeast, .impossible] {
                for flags in 0..<128 {
                    let shape = StatementShape(
                        source: source, lower: lower, hasUpper: flags & 1 != 0, after: flags & 2 != 0,
                        limited: flags & 4 != 0, ordered: flags & 8 != 0, backward: flags & 16 != 0,
                        versions: flags & 32 != 0, lean: flags & 64 != 0)
                    codes.insert(shape.code)
                    count += 1
                }
            }
        }
        #expect(codes.count == count)
    }
}

/// Parameters as libpq receives them, and reads through texts whose hash is kept.
@Suite(
    "PostgreSQL statement parameters and texts",
    .enabled(if: PostgresTestServer.isConfigured, PostgresTestServer.skipReason))
struct PostgresStatementTextTests {
    @Test(
        "integers reach the server as String(value) spells them, extremes included",
        arguments: [0, 1, -1, 9, 10, -10, 99, 100, 1_234_567_890_123, -987_654_321, .max, .min] as [Int64])
    func integerParameters(_ value: Int64) throws {
        let connection = try Connection("")
        let result = try connection.executePrepared("SELECT $1::int8, $1::text", [.int(value)])
        #expect(result.int(0, 0) == value)
        #expect(result.text(0, 1) == String(value))
    }

    @Test("mixed parameters keep their order and bytes: text, integer, bytes, null, hostile text")
    func mixedParameters() throws {
        let connection = try Connection("")
        let bytes: [UInt8] = [0, 1, 0xFF, 0x27, 0x5C, 0]
        let hostile = "'); DROP TABLE x; -- \u{1F600}"
        let result = try connection.executePrepared(
            "SELECT $1::text, $2::int8, $3::bytea, $4::text IS NULL, $5::text, $6::int8",
            [.text("é"), .int(-42), .bytes(bytes), .null, .text(hostile), .int(Int64.min)])
        #expect(result.text(0, 0) == "é")
        #expect(result.int(0, 1) == -42)
        #expect(result.bytes(0, 2) == bytes)
        #expect(result.bool(0, 3) == true)
        #expect(result.text(0, 4) == hostile)
        #expect(result.int(0, 5) == Int64.min)
    }

    @Test("a text and its String share one prepared statement")
    func sharedPreparation() throws {
        let connection = try Connection("")
        let sql = "SELECT $1::int8 * 2"
        #expect(try connection.executePrepared(SQLText(sql), [.int(4)]).int(0, 0) == 8)
        #expect(try connection.executePrepared(sql, [.int(5)]).int(0, 0) == 10)
        #expect(connection.preparedStatementCount == 1)
    }
}
