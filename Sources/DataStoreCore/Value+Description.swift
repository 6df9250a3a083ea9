extension Value: CustomStringConvertible {
    /// A JSON-like rendering for logs and error messages: strings quoted and escaped, bytes as
    /// `<00ff>`, object fields sorted by name.
    ///
    /// - Complexity: O(*n*) in the size of the value.
    public var description: String {
        var text = ""
        write(to: &text)
        return text
    }

    func write(to text: inout String) {
        switch self {
        case .null: text += "null"
        case .bool(let value): text += value ? "true" : "false"
        case .int(let value): text += String(value)
        case .double(let value): text += value.description
        case .string(let value): Value.writeQuoted(value, to: &text)
        case .bytes(let value):
            text += "<"
            for byte in value {
                text += byte < 16 ? "0" + String(byte, radix: 16) : String(byte, radix: 16)
            }
            text += ">"
        case .array(let value):
            text += "["
            for (index, element) in value.enumerated() {
                if index > 0 { text += ", " }
                element.write(to: &text)
            }
            text += "]"
        case .object(let value):
            value.write(to: &text)
        }
    }

    /// Quotes strings in descriptions exactly as JSON does (``JSONForm``).
    static func writeQuoted(_ string: String, to text: inout String) {
        JSONForm.writeString(string, to: &text)
    }
}
