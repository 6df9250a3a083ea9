// Documents as JSON text, both ways: the one JSON form shared by the REST model and the
// `datastore` tool (docs/rest.md, "JSON bodies"; docs/cli.md).
//
// Writing is done here rather than by JSONSerialization so that a Double stays a Double
// (`1437118258.0`, never `1437118258`) and the key order is stable; reading is JSONParser's.
// JSON is an edge format: nothing on the store's hot path uses it.
import Foundation

/// The JSON form of values: plain JSON, with bytes as the one-field object `{"$base64": "…"}`.
public enum JSONForm {
    /// The field name of the one-field object that carries bytes.
    public static let bytesKey = "$base64"

    /// `value` as JSON text; object fields in name order.
    /// - Parameters:
    ///   - value: The value to write.
    ///   - path: The field path `value` stands at, for error messages.
    /// - Throws: ``CodecError`` `.unsupportedType` naming the field when a double is NaN or
    ///   infinite, which JSON cannot carry; `.tooDeep` naming the field when arrays and objects
    ///   nest deeper than `RecordCodec/maxDepth` (checked before each level is written).
    /// - Complexity: O(*n* log *n*) in the size of the value (object fields are sorted).
    public static func text(_ value: Value, path: String = "") throws(CodecError) -> String {
        var text = ""
        try write(value, to: &text, path: path, depth: 0)
        return text
    }

    /// `document` as JSON text (see ``text(_:path:)``).
    public static func text(_ document: Document) throws(CodecError) -> String {
        try text(.object(document))
    }

    /// The value of the JSON text `bytes` (any JSON value at the top level), with every
    /// `{"$base64": "…"}` read as bytes.
    ///
    /// Numbers are read exactly: an integer literal is an ``Value/int(_:)`` when it fits `Int64`
    /// and an `.outOfRange` error otherwise; a literal with a fraction or an exponent is the
    /// nearest ``Value/double(_:)``, so the text ``text(_:path:)`` writes reads back bit for bit.
    ///
    /// - Throws: ``CodecError`` `.corrupt` or `.truncated` (with the byte offset) for text that is
    ///   not JSON, including invalid UTF-8 and a field name given twice; `.outOfRange` for an
    ///   integer outside `Int64` or a number beyond a double's range; `.tooDeep` past
    ///   `RecordCodec/maxDepth` levels. The error's field path names where the value stands.
    /// - Complexity: O(*n*) in the length of the text.
    public static func value(_ bytes: some Collection<UInt8>) throws(CodecError) -> Value {
        let parsed: Result<Value, CodecError>? = bytes.withContiguousStorageIfAvailable { buffer in
            Result { () throws(CodecError) in try JSONParser.parse(buffer) }
        }
        if let parsed { return try parsed.get() }
        let copy = Array(bytes)
        return try copy.withUnsafeBufferPointer { (buffer) throws(CodecError) in try JSONParser.parse(buffer) }
    }

    /// `depth` counts the arrays and objects around `value`.
    private static func write(_ value: Value, to text: inout String, path: String, depth: Int) throws(CodecError) {
        if value.isContainer, depth >= RecordCodec.maxDepth {
            throw CodecError(
                .tooDeep, "field '\(path)' nests deeper than \(RecordCodec.maxDepth) levels", fieldPath: path)
        }
        switch value {
        case .null: text += "null"
        case .bool(let flag): text += flag ? "true" : "false"
        case .int(let number): text += String(number)
        case .double(let number):
            guard number.isFinite else {
                throw CodecError(
                    .unsupportedType, "field '\(path)' holds \(number), which JSON cannot carry", fieldPath: path)
            }
            // Swift prints the shortest text that reads back exactly, always with a '.' or an
            // exponent, so a reader sees a double: 1437118258.0, 0.1, 1e+20.
            text += number.description
        case .string(let string): writeString(string, to: &text)
        case .bytes(let bytes):
            text += "{"
            writeString(bytesKey, to: &text)
            text += ":"
            writeString(Data(bytes).base64EncodedString(), to: &text)
            text += "}"
        case .array(let elements):
            text += "["
            for (index, element) in elements.enumerated() {
                if index > 0 { text += "," }
                try write(element, to: &text, path: "\(path)[\(index)]", depth: depth + 1)
            }
            text += "]"
        case .object(let document):
            text += "{"
            for (index, field) in document.sortedFields.enumerated() {
                if index > 0 { text += "," }
                writeString(field.name, to: &text)
                text += ":"
                try write(
                    field.value, to: &text, path: path.isEmpty ? field.name : path + "." + field.name, depth: depth + 1)
            }
            text += "}"
        }
    }

    /// Appends `string` as a JSON string literal.
    package static func writeString(_ string: String, to text: inout String) {
        text += "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case "\n": text += "\\n"
            case "\r": text += "\\r"
            case "\t": text += "\\t"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    text += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    text.unicodeScalars.append(scalar)
                }
            }
        }
        text += "\""
    }
}
