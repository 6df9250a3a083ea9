import DataStoreCore
import Foundation

/// Turning the command line's ids, documents, query parameters and sort keys into values.
enum InputArguments {
    /// An id typed on the command line: an integer (`42`) is an int id, a JSON string (`"42"`,
    /// with its quotes) is that string, anything else is the text itself.
    /// - Throws: ``ToolError`` `.badInput` for a quoted id that is not a JSON string.
    static func id(_ text: String) throws(ToolError) -> Value {
        if let number = Int64(text) { return .int(number) }
        guard text.hasPrefix("\"") else { return .string(text) }
        let value = try JSONReader.value(Array(text.utf8), what: "the id \(text)")
        guard case .string = value else { throw ToolError(.badInput, "the id \(text) is not a JSON string") }
        return value
    }

    /// The document in `text`, or read from standard input when `text` is `nil` or `-`.
    static func document(_ text: String?) throws(ToolError) -> Document {
        guard let text, text != "-" else {
            let data = FileHandle.standardInput.readDataToEndOfFile()
            return try JSONReader.document(Array(data), what: "the document on standard input")
        }
        return try JSONReader.document(Array(text.utf8), what: "the document")
    }

    /// Query parameters: a JSON object such as `{"created_ts >=": 1437108600}`.
    static func parameters(_ text: String?) throws(ToolError) -> [String: Value] {
        guard let text else { return [:] }
        return try JSONReader.document(Array(text.utf8), what: "the PARAMS argument").fields
    }

    /// A `--sort` value: JSON (`'["-created_ts", "name"]'`, `'{"ts": {"ascending": false}}'`), or
    /// field names separated by commas, each descending with a leading `-` (`-created_ts,name`).
    static func sort(_ text: String) throws(ToolError) -> Value {
        if let first = text.first, "[{\"".contains(first) {
            return try JSONReader.value(Array(text.utf8), what: "the --sort value")
        }
        let keys = text.split(separator: ",", omittingEmptySubsequences: false).map { Value.string(String($0)) }
        return keys.count == 1 ? keys[0] : .array(keys)
    }
}
