import DataStoreCore

/// Reads JSON text into documents and values through the package's one JSON reader
/// (``JSONForm/value(_:)``): numbers exactly, every one-field object `{"$base64": "…"}` as bytes
/// (the form ``JSONWriter`` writes).
enum JSONReader {
    /// The JSON object in `text`, as a document.
    /// - Parameter what: What the text is, for messages ("the document", "line 12").
    /// - Throws: ``ToolError`` `.badInput` saying why the text is not a JSON object that can be stored.
    static func document(_ text: some Collection<UInt8>, what: String) throws(ToolError) -> Document {
        let parsed = try value(text, what: what)
        guard case .object(let document) = parsed else {
            throw ToolError(
                .badInput, "\(what) is \(parsed.isNull ? "null" : "a JSON \(parsed.typeName)"), not a JSON object")
        }
        return document
    }

    /// The JSON value in `text`, read exactly by ``JSONForm/value(_:)``.
    /// - Throws: ``ToolError`` `.badInput` saying why the text is not JSON (with the byte offset),
    ///   or which value cannot be stored (an integer outside `Int64`, nesting too deep).
    static func value(_ text: some Collection<UInt8>, what: String) throws(ToolError) -> Value {
        do {
            return try JSONForm.value(text)
        } catch  where error.code == .corrupt || error.code == .truncated {
            let position = error.offset.map { " at byte \($0)" } ?? ""
            let place = error.fieldPath.isEmpty ? "" : " in field \(error.fieldPath)"
            throw ToolError(
                .badInput, "\(what) is not valid JSON (\(error.message)\(position)\(place)): \(excerpt(text))")
        } catch {
            throw ToolError(.badInput, "\(what) holds a value that cannot be stored: \(error)")
        }
    }

    /// The start of `text`, at most 80 characters.
    static func excerpt(_ text: some Collection<UInt8>) -> String {
        let shown = String(decoding: text.prefix(80), as: UTF8.self)
        return text.count > 80 ? shown + "…" : shown
    }
}
