import DataStoreCore
import Foundation

/// Writes documents as compact JSON, in the form `import` reads back: fields sorted by name, an
/// int as `12`, a double always with a `.` or an exponent (`12.0`), bytes as `{"$base64": "…"}`.
///
/// The same form as the REST wire format (DataStoreREST's `JSONWire`).
struct JSONWriter {
    /// The JSON text written so far, as UTF-8.
    var bytes: [UInt8] = []

    /// Appends `document` as a JSON object.
    /// - Throws: ``ToolError`` `.badInput` naming the field of a NaN or infinite double, which JSON
    ///   cannot carry.
    mutating func append(_ document: Document, path: String = "") throws(ToolError) {
        bytes.append(UInt8(ascii: "{"))
        var first = true
        for field in document.sortedFields {
            if !first { bytes.append(UInt8(ascii: ",")) }
            first = false
            appendString(field.name)
            bytes.append(UInt8(ascii: ":"))
            try append(field.value, path: path.isEmpty ? field.name : "\(path).\(field.name)")
        }
        bytes.append(UInt8(ascii: "}"))
    }

    /// Appends `value` as JSON.
    mutating func append(_ value: Value, path: String) throws(ToolError) {
        switch value {
        case .null: bytes += "null".utf8
        case .bool(true): bytes += "true".utf8
        case .bool(false): bytes += "false".utf8
        case .int(let number): bytes += String(number).utf8
        case .double(let number) where number.isFinite:
            // Swift's shortest round-trip text always has a "." or an exponent: it reads back as a double.
            bytes += number.description.utf8
        case .double(let number):
            throw ToolError(.badInput, "field \(path) holds \(number), which JSON cannot carry")
        case .string(let text): appendString(text)
        case .bytes(let data): try append(Document(["$base64": .string(Data(data).base64EncodedString())]), path: path)
        case .array(let elements):
            bytes.append(UInt8(ascii: "["))
            for (position, element) in elements.enumerated() {
                if position > 0 { bytes.append(UInt8(ascii: ",")) }
                try append(element, path: "\(path)[\(position)]")
            }
            bytes.append(UInt8(ascii: "]"))
        case .object(let document): try append(document, path: path)
        }
    }

    /// Appends `text` quoted, escaping `"`, `\` and control characters.
    mutating func appendString(_ text: String) {
        bytes.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else {
                bytes.append(byte)
                continue
            }
            bytes.append(UInt8(ascii: "\\"))
            switch byte {
            case UInt8(ascii: "\n"): bytes.append(UInt8(ascii: "n"))
            case UInt8(ascii: "\r"): bytes.append(UInt8(ascii: "r"))
            case UInt8(ascii: "\t"): bytes.append(UInt8(ascii: "t"))
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): bytes.append(byte)
            default: bytes += "u00".utf8 + [JSONWriter.hexDigits[Int(byte >> 4)], JSONWriter.hexDigits[Int(byte & 0xF)]]
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// `document` as one line of JSON text.
    static func text(_ document: Document) throws(ToolError) -> String {
        var writer = JSONWriter()
        try writer.append(document)
        return String(decoding: writer.bytes, as: UTF8.self)
    }
}
