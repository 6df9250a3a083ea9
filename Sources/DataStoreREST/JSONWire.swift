// Documents as JSON on the wire, both ways (see docs/rest.md, "JSON bodies").
//
// Writing is done here rather than by JSONSerialization so that a Double stays a Double on the
// wire (`1437118258.0`, never `1437118258`) and the key order is stable. Reading is
// DataStoreCore's exact JSON reader, shared with the `datastore` tool.
import DataStoreCore
import Foundation

/// The JSON form of documents on the wire: DataStoreCore's ``/DataStoreCore/JSONForm`` (plain JSON, bytes as
/// `{"$base64": "…"}`), with errors stated as the model's.
enum JSONWire {
    /// Returns `document` as UTF-8 JSON text.
    ///
    /// - Throws: `.invalidValue` naming the field when a double is NaN or infinite, which JSON
    ///   cannot carry.
    /// - Complexity: O(*n* log *n*) in the size of the document (fields are sorted by name).
    static func encode(_ document: Document) throws(DataStoreError) -> Data {
        Data(try text(.object(document), path: "").utf8)
    }

    /// Returns `value` as JSON text.
    ///
    /// - Throws: See ``encode(_:)``.
    static func text(_ value: Value, path: String) throws(DataStoreError) -> String {
        do {
            return try JSONForm.text(value, path: path)
        } catch {
            throw DataStoreError(.invalidValue, error.message, underlying: error)
        }
    }

    /// What a body was expected to hold, for messages.
    enum Shape: String {
        case object = "a JSON object"
        case array = "a JSON array of objects"
    }

    /// Reads `data` as one JSON value, which must have the `expected` shape, through the
    /// package's one JSON reader (``/DataStoreCore/JSONForm/value(_:)``: numbers exactly, bytes from
    /// `{"$base64": "…"}`).
    ///
    /// - Returns: One document for `.object`, the documents for `.array`.
    /// - Throws: `.badResponse` naming `exchange`, what was wrong, and an excerpt of the body.
    static func decode(_ data: Data, expected: Shape, exchange: String) throws(DataStoreError) -> [Document] {
        let json: Value
        do {
            json = try JSONForm.value(data)
        } catch  where error.code == .corrupt || error.code == .truncated {
            let position = error.offset.map { " at byte \($0)" } ?? ""
            throw DataStoreError(
                .badResponse,
                "\(exchange) answered a body that is not JSON (\(error.message)\(position)): "
                    + "\(BodyExcerpt(data))", underlying: error)
        } catch {
            throw DataStoreError(
                .badResponse, "\(exchange) answered a value that cannot be stored: \(error)",
                underlying: error)
        }
        switch (expected, json) {
        case (.object, .object(let document)):
            return [document]
        case (.array, .array(let elements)):
            var documents: [Document] = []
            documents.reserveCapacity(elements.count)
            for (index, element) in elements.enumerated() {
                guard case .object(let document) = element else {
                    throw DataStoreError(
                        .badResponse,
                        "\(exchange) answered an array whose element \(index) is \(kind(of: element)), expected an object: \(BodyExcerpt(data))"
                    )
                }
                documents.append(document)
            }
            return documents
        default:
            throw DataStoreError(
                .badResponse,
                "\(exchange) answered \(kind(of: json)) where \(expected.rawValue) was expected: \(BodyExcerpt(data))")
        }
    }

    /// "an object", "a string", … for a JSON value.
    private static func kind(of json: Value) -> String {
        switch json {
        case .object: "an object"
        case .array: "an array"
        case .string: "a string"
        case .null: "null"
        case .bool: "a Boolean"
        case .int, .double: "a number"
        case .bytes: "bytes"
        }
    }
}

/// The first bytes of a body, for error messages: at most ``limit`` bytes of UTF-8 (invalid
/// sequences shown as U+FFFD, never a character cut in half), followed by `…` and the body's
/// size when it was cut.
struct BodyExcerpt: CustomStringConvertible {
    /// The largest number of UTF-8 bytes an excerpt shows.
    static let limit = 512

    let description: String

    init(_ body: Data) {
        guard !body.isEmpty else {
            description = "(empty body)"
            return
        }
        var prefix = Array(body.prefix(Self.limit))
        if body.count > Self.limit { Self.dropIncompleteSequence(&prefix) }
        let decoded = String(decoding: prefix, as: UTF8.self)
        var text = ""
        var size = 0
        for scalar in decoded.unicodeScalars {
            size += UTF8.width(scalar)
            if size > Self.limit { break }
            text.unicodeScalars.append(scalar)
        }
        let complete = body.count <= Self.limit && text.unicodeScalars.count == decoded.unicodeScalars.count
        description = complete ? text : "\(text)… (\(body.count) bytes)"
    }

    /// Removes a UTF-8 sequence cut short at the end of `bytes`, if any.
    private static func dropIncompleteSequence(_ bytes: inout [UInt8]) {
        var start = bytes.count - 1
        while start >= 0, start >= bytes.count - 4, bytes[start] & 0xC0 == 0x80 { start -= 1 }
        guard start >= 0 else { return }
        let lead = bytes[start]
        let length = lead < 0x80 ? 1 : lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1
        if bytes.count - start < length { bytes.removeSubrange(start...) }
    }
}
