/// Reads key bytes, un-inverting them while inside a descending component.
struct KeyReader {
    let bytes: UnsafeRawBufferPointer
    var offset = 0
    /// 0xFF inside a descending component, 0x00 otherwise: XORed into every byte read.
    var mask: UInt8 = 0

    var isAtEnd: Bool { offset >= bytes.count }

    mutating func readByte(_ what: @autoclosure () -> String) throws(CodecError) -> UInt8 {
        guard offset < bytes.count else {
            throw CodecError(.truncated, "key ends before \(what())", offset: offset)
        }
        defer { offset += 1 }
        return bytes[offset] ^ mask
    }

    func peekByte(_ what: @autoclosure () -> String) throws(CodecError) -> UInt8 {
        guard offset < bytes.count else {
            throw CodecError(.truncated, "key ends before \(what())", offset: offset)
        }
        return bytes[offset] ^ mask
    }

    /// Reads one (ascending, after unmasking) value; `truncated` is true when a truncation marker
    /// ended it, which also ends the enclosing component.
    mutating func readValue(depth: Int) throws(CodecError) -> (value: Value, truncated: Bool) {
        let tagOffset = offset
        let tag = try readByte("a type tag")
        switch tag {
        case KeyCodec.Tag.null: return (.null, false)
        case KeyCodec.Tag.false: return (.bool(false), false)
        case KeyCodec.Tag.true: return (.bool(true), false)
        case KeyCodec.Tag.number: return (try readNumber(tagOffset: tagOffset), false)
        case KeyCodec.Tag.string:
            let (content, truncated) = try readEscaped()
            return (.string(try makeString(content, truncated: truncated, offset: tagOffset)), truncated)
        case KeyCodec.Tag.bytes:
            let (content, truncated) = try readEscaped()
            return (.bytes(content), truncated)
        case KeyCodec.Tag.array:
            try checkDepth(depth, offset: tagOffset)
            return try readArray(depth: depth)
        case KeyCodec.Tag.object:
            try checkDepth(depth, offset: tagOffset)
            return try readObject(depth: depth)
        default:
            throw CodecError(.corrupt, "reserved key tag 0x\(String(tag, radix: 16))", offset: tagOffset)
        }
    }

    private func checkDepth(_ depth: Int, offset: Int) throws(CodecError) {
        guard depth < KeyCodec.maxDepth else {
            throw CodecError(.tooDeep, "key nests more than \(KeyCodec.maxDepth) arrays or objects", offset: offset)
        }
    }

    private mutating func readNumber(tagOffset: Int) throws(CodecError) -> Value {
        guard bytes.count - offset >= 9 else {
            throw CodecError(.truncated, "a number needs 9 bytes after its tag", offset: offset)
        }
        var bits = UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
        if mask != 0 { bits = ~bits }
        offset += 8
        guard let double = KeyCodec.double(orderedBits: bits) else {
            throw CodecError(.corrupt, "non-canonical number bits 0x\(String(bits, radix: 16))", offset: tagOffset)
        }
        let suffix = try readByte("a number's exactness suffix")
        switch suffix {
        case 0x00:
            if let exact = Int64(exactly: double) { return .int(exact) }
            return .double(double)
        case 0x01:
            let high = try readByte("a number's delta"), low = try readByte("a number's delta")
            let delta = Int64(high) << 8 | Int64(low)
            guard let base = Int64(exactly: double), (1...2047).contains(delta) else {
                throw CodecError(.corrupt, "delta \(delta) on \(double) does not make an Int64", offset: tagOffset)
            }
            let (number, overflow) = base.addingReportingOverflow(delta)
            guard !overflow, NumberOrder.floorDouble(number) == (double, delta) else {
                throw CodecError(.corrupt, "non-canonical integer \(double) + \(delta)", offset: tagOffset)
            }
            return .int(number)
        default:
            throw CodecError(.corrupt, "number suffix 0x\(String(suffix, radix: 16))", offset: offset - 1)
        }
    }

    /// Reads escaped content up to `00 01` (end) or `00 02` (truncated end).
    private mutating func readEscaped() throws(CodecError) -> (content: [UInt8], truncated: Bool) {
        var content: [UInt8] = []
        while true {
            let byte = try readByte("the end of a string")
            if byte != 0 {
                content.append(byte)
                continue
            }
            let next = try readByte("the end of a string")
            switch next {
            case KeyCodec.Marker.escapedZero: content.append(0)
            case KeyCodec.Marker.end: return (content, false)
            case KeyCodec.Marker.truncatedEnd: return (content, true)
            default:
                throw CodecError(
                    .corrupt, "0x00 followed by 0x\(String(next, radix: 16)) inside a string", offset: offset - 1)
            }
        }
    }

    private func makeString(_ content: [UInt8], truncated: Bool, offset: Int) throws(CodecError) -> String {
        var end = content.count
        if truncated {
            // The cut may split a UTF-8 sequence: drop an incomplete final one.
            var lead = end - 1
            while lead >= 0, lead >= end - 4, content[lead] & 0xC0 == 0x80 { lead -= 1 }
            if lead >= 0 {
                let byte = content[lead]
                let length = byte < 0x80 ? 1 : byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : 2
                if end - lead < length { end = lead }
            }
        }
        guard let string = String(validating: content[..<end], as: UTF8.self) else {
            throw CodecError(.corrupt, "invalid UTF-8 in a key string", offset: offset)
        }
        return string
    }

    private mutating func readArray(depth: Int) throws(CodecError) -> (value: Value, truncated: Bool) {
        var elements: [Value] = []
        while true {
            let next = try peekByte("the end of an array")
            if next == KeyCodec.Marker.containerEnd || next == KeyCodec.Marker.truncatedElement {
                offset += 1
                return (.array(elements), next == KeyCodec.Marker.truncatedElement)
            }
            let (element, truncated) = try readValue(depth: depth + 1)
            elements.append(element)
            if truncated { return (.array(elements), true) }
        }
    }

    private mutating func readObject(depth: Int) throws(CodecError) -> (value: Value, truncated: Bool) {
        var fields: [String: Value] = [:]
        var previous: String?
        while true {
            let next = try peekByte("the end of an object")
            if next == KeyCodec.Marker.containerEnd || next == KeyCodec.Marker.truncatedElement {
                offset += 1
                return (.object(Document(fields)), next == KeyCodec.Marker.truncatedElement)
            }
            let nameOffset = offset
            guard next == KeyCodec.Tag.string else {
                throw CodecError(
                    .corrupt, "object field name must be a string, found tag 0x\(String(next, radix: 16))",
                    offset: offset)
            }
            let (nameValue, nameTruncated) = try readValue(depth: depth + 1)
            if nameTruncated { return (.object(Document(fields)), true) }
            guard case .string(let name) = nameValue else { preconditionFailure("tag 0x40 decodes to a string") }
            if let previous, UTF8Order.compare(previous, name) >= 0 {
                throw CodecError(.corrupt, "object field names are not strictly ascending", offset: nameOffset)
            }
            previous = name
            if try peekByte("a field value") == KeyCodec.Marker.truncatedElement {
                offset += 1
                return (.object(Document(fields)), true)
            }
            let (value, truncated) = try readValue(depth: depth + 1)
            guard fields.updateValue(value, forKey: name) == nil else {
                throw CodecError(.corrupt, "object field name '\(name)' appears twice", offset: nameOffset)
            }
            if truncated { return (.object(Document(fields)), true) }
        }
    }
}
