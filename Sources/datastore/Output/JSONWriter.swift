import DataStoreCore
import Foundation

/// Writes documents as compact JSON, in the form `import` reads back: DataStoreCore's
/// ``JSONForm`` (fields sorted by name, an int as `12`, a double always with a `.` or an
/// exponent, bytes as `{"$base64": "…"}`) — the same form as the REST wire format.
struct JSONWriter {
    /// The JSON text written so far, as UTF-8.
    var bytes: [UInt8] = []

    /// Appends `document` as a JSON object.
    /// - Throws: ``ToolError`` `.badInput` naming the field of a NaN or infinite double, which JSON
    ///   cannot carry.
    mutating func append(_ document: Document, path: String = "") throws(ToolError) {
        try append(.object(document), path: path)
    }

    /// Appends `value` as JSON.
    mutating func append(_ value: Value, path: String) throws(ToolError) {
        do {
            bytes += try JSONForm.text(value, path: path).utf8
        } catch {
            throw ToolError(.badInput, error.message)
        }
    }

    /// `document` as one line of JSON text.
    static func text(_ document: Document) throws(ToolError) -> String {
        var writer = JSONWriter()
        try writer.append(document)
        return String(decoding: writer.bytes, as: UTF8.self)
    }
}
