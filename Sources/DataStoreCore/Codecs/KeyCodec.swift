/// The ordered key format: values encoded so that comparing keys byte by byte compares the values.
///
/// Specified in docs/encoding.md ("Ordered key format"), after the FoundationDB tuple layer and
/// lmdb-js's ordered-binary. A key is a concatenation of components, one per value; each
/// component starts with a type tag, so the type classes sort as ``Value`` does, and components
/// are prefix-free, so a composite key sorts by its first component, then its second, and so on.
///
/// ```swift
/// var key: [UInt8] = []
/// KeyCodec.append("12", to: &key)                          // from_user_key, ascending
/// KeyCodec.append(1437108600, to: &key, descending: true)  // created_ts, newest first
/// ```
///
/// For values `a`, `b` at the same position: `a < b` ⟺ `key(a) < key(b)` and `a == b` ⟺
/// `key(a) == key(b)`, including `1 == 1.0`, `-0.0 == 0.0`, NaN below every number, and integers
/// beyond 2^53 (kept exact by a suffix).
package enum KeyCodec {
    /// The largest key LMDB accepts in the Debian build (`mdb_env_get_maxkeysize`).
    package static let maxKeyBytes = 511

    /// The smallest budget ``appendTruncating(_:to:descending:maxBytes:)`` accepts: room for any
    /// number (12 bytes) and a string's tag, one content byte and a marker.
    package static let minimumComponentBytes = 16

    /// The deepest nesting of arrays and objects ``decodeComponents(_:)-(UnsafeRawBufferPointer)`` accepts.
    package static let maxDepth = 64

    /// The ascending type tags of docs/encoding.md. Descending components are their bitwise NOT.
    enum Tag {
        static let null: UInt8 = 0x10
        static let `false`: UInt8 = 0x20
        static let `true`: UInt8 = 0x21
        static let number: UInt8 = 0x30
        static let string: UInt8 = 0x40
        static let bytes: UInt8 = 0x50
        static let array: UInt8 = 0x60
        static let object: UInt8 = 0x70
        /// The first byte of every descending component is at or above this.
        static let firstDescending: UInt8 = 0x80
    }

    /// Content and end markers of strings, bytes, arrays and objects.
    enum Marker {
        /// Follows `0x00` inside a string for an escaped zero byte.
        static let escapedZero: UInt8 = 0xFF
        /// Follows `0x00` to end a string or bytes component.
        static let end: UInt8 = 0x01
        /// Follows `0x00` to end a truncated string or bytes component.
        static let truncatedEnd: UInt8 = 0x02
        /// Ends an array or object component.
        static let containerEnd: UInt8 = 0x00
        /// Ends the whole component at an element position when truncating.
        static let truncatedElement: UInt8 = 0x01
    }

    /// Appends one key component for `value`.
    ///
    /// - Parameters:
    ///   - value: The value; any case, including arrays and objects (nested components).
    ///   - key: The key being built.
    ///   - descending: Whether this component sorts in reverse (its bytes are inverted).
    /// - Complexity: O(*n*) in the size of `value`; O(*n* log *n*) for objects, whose fields are sorted.
    package static func append(_ value: Value, to key: inout [UInt8], descending: Bool = false) {
        let start = key.count
        appendAscending(value, to: &key)
        if descending { invert(&key, from: start) }
    }

    /// Returns the key of the given components, each ascending unless marked descending.
    ///
    /// - Parameter components: The values in key order, with their directions.
    /// - Complexity: O(*n*) in the total size of the values.
    package static func encode(_ components: [(value: Value, descending: Bool)]) -> [UInt8] {
        var key: [UInt8] = []
        for component in components { append(component.value, to: &key, descending: component.descending) }
        return key
    }

    /// Returns the key of `values`, every component ascending.
    ///
    /// - Complexity: O(*n*) in the total size of the values.
    package static func encode(_ values: [Value]) -> [UInt8] {
        var key: [UInt8] = []
        for value in values { append(value, to: &key) }
        return key
    }

    static func invert(_ key: inout [UInt8], from start: Int) {
        for index in start..<key.count { key[index] = ~key[index] }
    }

    /// Appends the ascending component of `value` (walked without recursion: see ``Value/walk(_:)``).
    static func appendAscending(_ value: Value, to key: inout [UInt8]) {
        guard value.isContainer else { return appendScalar(value, to: &key) }
        value.walk { step in
            switch step {
            case .scalar(let scalar): appendScalar(scalar, to: &key)
            case .startArray: key.append(Tag.array)
            case .startObject: key.append(Tag.object)
            case .element: break
            case .field(_, let name): appendScalar(.string(name), to: &key)
            case .endArray, .endObject: key.append(Marker.containerEnd)
            }
        }
    }

    /// Appends the component of a value that is not an array or an object.
    static func appendScalar(_ value: Value, to key: inout [UInt8]) {
        switch value {
        case .null:
            key.append(Tag.null)
        case .bool(let flag):
            key.append(flag ? Tag.true : Tag.false)
        case .int(let number):
            appendNumber(number, to: &key)
        case .double(let number):
            appendNumber(number, delta: 0, to: &key)
        case .string(var text):
            key.append(Tag.string)
            text.withUTF8 { appendEscaped(UnsafeRawBufferPointer($0), to: &key) }
            key.append(0)
            key.append(Marker.end)
        case .bytes(let raw):
            key.append(Tag.bytes)
            raw.withUnsafeBytes { appendEscaped($0, to: &key) }
            key.append(0)
            key.append(Marker.end)
        case .array, .object:
            preconditionFailure("appendScalar is given only scalars")
        }
    }

    /// Appends content bytes, writing each zero byte as `00 FF`.
    static func appendEscaped(_ bytes: UnsafeRawBufferPointer, to key: inout [UInt8]) {
        guard bytes.contains(0) else {
            key.append(contentsOf: bytes)
            return
        }
        for byte in bytes {
            key.append(byte)
            if byte == 0 { key.append(Marker.escapedZero) }
        }
    }

    // MARK: Numbers

    /// Appends an integer: exact below 2^53 in magnitude, otherwise rounded down to a double with
    /// the distance written in the suffix, so that large integers stay exact and ordered.
    static func appendNumber(_ number: Int64, to key: inout [UInt8]) {
        if number.magnitude <= 1 << 53 {
            appendNumber(Double(number), delta: 0, to: &key)
        } else {
            let (double, delta) = NumberOrder.floorDouble(number)
            appendNumber(double, delta: delta, to: &key)
        }
    }

    static func appendNumber(_ number: Double, delta: Int64, to key: inout [UInt8]) {
        key.append(Tag.number)
        key.appendBigEndian(orderedBits(number))
        if delta == 0 {
            key.append(0x00)
        } else {
            key.append(0x01)
            key.appendBigEndian(UInt16(delta))
        }
    }

    /// Maps a double onto an unsigned integer with the same order: NaN to 0 (below −∞),
    /// negatives inverted, non-negatives with the sign bit set; `-0.0` as `0.0`.
    @inline(__always)
    static func orderedBits(_ number: Double) -> UInt64 {
        if number.isNaN { return 0 }
        let bits = (number == 0 ? 0.0 : number).bitPattern
        return bits >> 63 == 1 ? ~bits : bits | (1 << 63)
    }

    /// The inverse of ``orderedBits(_:)``; `nil` for bit patterns ``orderedBits(_:)`` never produces.
    static func double(orderedBits bits: UInt64) -> Double? {
        if bits == 0 { return .nan }
        let number = bits >> 63 == 1 ? Double(bitPattern: bits & ~(1 << 63)) : Double(bitPattern: ~bits)
        if number.isNaN { return nil } // only the all-zero pattern is NaN
        if number == 0 && number.sign == .minus { return nil } // -0.0 is written as 0.0
        return number
    }
}
