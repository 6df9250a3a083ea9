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

    /// Appends the description (walked without recursion: see ``walk(_:)``).
    func write(to text: inout String) {
        walk { step in
            switch step {
            case .scalar(let value): value.writeScalar(to: &text)
            case .startArray: text += "["
            case .element(let index): if index > 0 { text += ", " }
            case .endArray: text += "]"
            case .startObject: text += "{"
            case .field(let index, let name):
                if index > 0 { text += ", " }
                Value.writeQuoted(name, to: &text)
                text += ": "
            case .endObject: text += "}"
            }
        }
    }

    private func writeScalar(to text: inout String) {
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
        case .array, .object:
            preconditionFailure("writeScalar is given only scalars")
        }
    }

    /// Quotes strings in descriptions exactly as JSON does (``JSONForm``).
    static func writeQuoted(_ string: String, to text: inout String) {
        JSONForm.writeString(string, to: &text)
    }
}
