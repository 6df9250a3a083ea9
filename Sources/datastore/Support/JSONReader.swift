import DataStoreCore
import Foundation

/// Reads JSON text into documents and values: JSONSerialization tells integers (`1`), doubles
/// (`1.0`, `1e3`) and Booleans apart, `Document(dictionary:)` converts, and every one-field
/// object `{"$base64": "…"}` becomes bytes (``JSONForm``, the form ``JSONWriter`` writes).
enum JSONReader {
    /// The JSON object in `text`, as a document.
    /// - Parameter what: What the text is, for messages ("the document", "line 12").
    /// - Throws: ``ToolError`` `.badInput` saying why the text is not a JSON object that can be stored.
    static func document(_ text: some Collection<UInt8>, what: String) throws(ToolError) -> Document {
        let parsed = try value(text, what: what)
        guard case .object(let document) = parsed else {
            throw ToolError(.badInput, "\(what) is \(parsed.isNull ? "null" : "a JSON \(parsed.typeName)"), not a JSON object")
        }
        return document
    }

    /// The JSON value in `text`.
    /// - Throws: ``ToolError`` `.badInput` saying why the text is not JSON.
    static func value(_ text: some Collection<UInt8>, what: String) throws(ToolError) -> Value {
        let json: Any
        do {
            json = try JSONSerialization.jsonObject(with: Data(text), options: [.fragmentsAllowed])
        } catch {
            throw ToolError(.badInput, "\(what) is not valid JSON (\(reason(error))): \(excerpt(text))")
        }
        do {
            return JSONForm.restoringBytes(try Value(any: json))
        } catch {
            throw ToolError(.badInput, "\(what) holds a value that cannot be stored: \(error)")
        }
    }

    /// JSONSerialization's reason, without its boilerplate.
    private static func reason(_ error: any Error) -> String {
        let nsError = error as NSError
        return (nsError.userInfo[NSDebugDescriptionErrorKey] as? String) ?? nsError.localizedDescription
    }

    /// The start of `text`, at most 80 characters.
    static func excerpt(_ text: some Collection<UInt8>) -> String {
        let shown = String(decoding: text.prefix(80), as: UTF8.self)
        return text.count > 80 ? shown + "…" : shown
    }
}
