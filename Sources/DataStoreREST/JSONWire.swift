// Documents as JSON on the wire, both ways (see docs/rest.md, "JSON bodies").
//
// Writing is done here rather than by JSONSerialization so that a Double stays a Double on the
// wire (`1437118258.0`, never `1437118258`) and the key order is stable. Reading goes through
// JSONSerialization and `Document(dictionary:)`, which on Linux tell integers (`1`), doubles
// (`1.0`, `1e3`) and Booleans apart by the NSNumber's stored type.
import DataStoreCore
import Foundation

/// The JSON form of documents on the wire: DataStoreCore's ``JSONForm`` (plain JSON, bytes as
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

    /// Reads `data` as one JSON value, which must have the `expected` shape.
    ///
    /// - Returns: One document for `.object`, the documents for `.array`.
    /// - Throws: `.badResponse` naming `exchange`, what was wrong, and an excerpt of the body.
    static func decode(_ data: Data, expected: Shape, exchange: String) throws(DataStoreError) -> [Document] {
        let json: Any
        do {
            json = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
        } catch {
            throw DataStoreError(
                .badResponse,
                "\(exchange) answered a body that is not JSON (\(error.localizedDescription)): \(BodyExcerpt(data))",
                underlying: error)
        }
        switch (expected, json) {
        case (.object, let object as [String: Any]):
            return [try document(object, exchange: exchange, what: "the object")]
        case (.array, let array as [Any]):
            var documents: [Document] = []
            documents.reserveCapacity(array.count)
            for (index, element) in array.enumerated() {
                guard let object = element as? [String: Any] else {
                    throw DataStoreError(
                        .badResponse,
                        "\(exchange) answered an array whose element \(index) is \(kind(of: element)), expected an object: \(BodyExcerpt(data))")
                }
                documents.append(try document(object, exchange: exchange, what: "element \(index)"))
            }
            return documents
        default:
            throw DataStoreError(
                .badResponse,
                "\(exchange) answered \(kind(of: json)) where \(expected.rawValue) was expected: \(BodyExcerpt(data))")
        }
    }

    private static func document(_ object: [String: Any], exchange: String, what: String) throws(DataStoreError) -> Document {
        let document: Document
        do {
            document = try Document(dictionary: object)
        } catch {
            throw DataStoreError(.badResponse, "\(exchange) answered \(what) with a value that cannot be stored: \(error)",
                                 underlying: error)
        }
        return restoringBytes(document)
    }

    /// Turns every `{"$base64": "…"}` inside `document` back into bytes.
    private static func restoringBytes(_ document: Document) -> Document {
        guard case .object(let restored) = JSONForm.restoringBytes(.object(document)) else { return document }
        return restored
    }

    /// "an object", "a string", … for a value JSONSerialization produced.
    private static func kind(of json: Any) -> String {
        switch json {
        case is [String: Any]: "an object"
        case is [Any]: "an array"
        case is String: "a string"
        case is NSNull: "null"
        case let number as NSNumber:
            String(cString: number.objCType) == "c" ? "a Boolean" : "a number"
        default: "a \(type(of: json))"
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
