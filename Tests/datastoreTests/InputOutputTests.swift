import DataStoreCore
@testable import datastore
import Foundation
import Testing

@Suite("JSON, ids, tables and lines")
struct InputOutputTests {
    @Test func jsonRoundTripKeepsTypes() throws {
        let document: Document = [
            "int": .int(12), "double": .double(12), "fraction": .double(0.1), "big": .double(1e20),
            "bool": .bool(true), "null": .null, "bytes": .bytes([0, 1, 255]),
            "text": .string("quote \" backslash \\ newline \n tab \t bell \u{7} é 🦉"),
            "list": .array([.int(1), .string("a"), .object(["nested": .bytes([])])])
        ]
        let text = try JSONWriter.text(document)
        #expect(text.contains("\"double\":12.0"))
        #expect(text.contains("\"int\":12,"))
        #expect(text.contains("\"bytes\":{\"$base64\":\"AAH/\"}"))
        #expect(text.contains("\\u0007"))
        let back = try JSONReader.document(Array(text.utf8), what: "it")
        #expect(back == document)
        #expect(back["double"] == .double(12))
        if case .double = back["double"] {
        } else {
            Issue.record("12.0 read back as \(String(describing: back["double"]))")
        }
        if case .int = back["int"] {} else { Issue.record("12 read back as \(String(describing: back["int"]))") }
    }

    @Test func fieldsAreWrittenInNameOrder() throws {
        #expect(try JSONWriter.text(["b": 1, "a": 2, "c": ["z": 1, "y": 2]]) == #"{"a":2,"b":1,"c":{"y":2,"z":1}}"#)
    }

    @Test func nonFiniteDoublesAreRefusedWithTheirField() {
        #expect(throws: ToolError(.badInput, "field 'a.b' holds nan, which JSON cannot carry")) {
            try JSONWriter.text(["a": .object(["b": .double(.nan)])])
        }
    }

    @Test func readingErrorsSayWhatWasWrong() {
        #expect(throws: ToolError.self) { try JSONReader.document(Array("{\"a\": ".utf8), what: "line 3") }
        do {
            _ = try JSONReader.document(Array("[1, 2]".utf8), what: "line 3")
            Issue.record("an array was accepted as a document")
        } catch {
            #expect(error.message == "line 3 is a JSON array, not a JSON object")
            #expect(error.exitCode == .badInput)
        }
        do {
            _ = try JSONReader.document(Array("{oops}".utf8), what: "line 7")
        } catch {
            #expect(error.message.hasPrefix("line 7 is not valid JSON ("))
            #expect(error.message.hasSuffix("): {oops}"))
        }
    }

    @Test func idsFromTheCommandLine() throws {
        #expect(try InputArguments.id("42") == .int(42))
        #expect(try InputArguments.id("-7") == .int(-7))
        #expect(try InputArguments.id("\"42\"") == .string("42"))
        #expect(try InputArguments.id("alice") == .string("alice"))
        #expect(try InputArguments.id("4.5") == .string("4.5"))
        #expect(throws: ToolError.self) { try InputArguments.id("\"unterminated") }
    }

    @Test func sortKeysFromTheCommandLine() throws {
        #expect(try InputArguments.sort("-created_ts") == .string("-created_ts"))
        #expect(try InputArguments.sort("-created_ts,name") == .array(["-created_ts", "name"]))
        #expect(
            try InputArguments.sort(#"[{"a": {"ascending": false}}]"#)
                == .array([.object(["a": .object(["ascending": false])])]))
    }

    @Test func queryParametersMustBeAnObject() throws {
        #expect(try InputArguments.parameters(nil).isEmpty)
        #expect(try InputArguments.parameters(#"{"ts >=": 5}"#) == ["ts >=": .int(5)])
        #expect(throws: ToolError.self) { try InputArguments.parameters("[]") }
    }

    @Test func tablesAlignAndCut() {
        var table = Table(["name", "count"], rightAligned: [1])
        table.maxCellWidth = 8
        table.append(["a", "1"])
        table.append(["a long name", "1,000"])
        #expect(
            table.lines == [
                "name      count",
                "--------  -----",
                "a             1",
                "a long …  1,000"
            ])
        #expect(grouped(1_234_567) == "1,234,567")
        #expect(grouped(-1_000) == "-1,000")
        #expect(grouped(999) == "999")
        #expect(byteSize(512) == "512 B")
        #expect(byteSize(1_536) == "1.5 KiB")
        #expect(byteSize(1 << 30) == "1.0 GiB")
    }

    @Test func lineReaderStreamsLines() throws {
        let long = String(repeating: "x", count: 200_000)
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("lines-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data("one\r\n\n\(long)\nlast".utf8).write(to: URL(fileURLWithPath: path))
        let reader = try LineReader(path: path)
        #expect(reader.totalBytes == 5 + 1 + 200_001 + 4)
        var lines: [String] = []
        while let line = try reader.nextLine() { lines.append(String(decoding: line, as: UTF8.self)) }
        #expect(lines == ["one", "", long, "last"])
        #expect(reader.lineNumber == 4)
        #expect(reader.bytesRead == reader.totalBytes)
        #expect(throws: ToolError.self) { try LineReader(path: path + "-missing") }
    }

    @Test func storeErrorsKeepTheirMeaning() {
        #expect(ToolError(DataStoreError(.notFound, "no object with id 1 in M")).exitCode == .notFound)
        #expect(ToolError(DataStoreError(.duplicateID, "id 1")).exitCode == .badInput)
        #expect(ToolError(DataStoreError(.invalidQuery, "key")).exitCode == .badInput)
        #expect(ToolError(DataStoreError(.storage, "disk")).exitCode == .storage)
        #expect(ToolError(DataStoreError(.storage, "disk")).message == "disk")
    }
}
