/// A value bound to a `$n` placeholder: never spliced into SQL text.
package enum SQLParameter: Sendable, Hashable {
    /// SQL `NULL`.
    case null
    /// Text, sent in text format.
    case text(String)
    /// Bytes for a `bytea` (or an array in binary format), sent in binary format.
    case bytes([UInt8])
    /// A 64-bit integer, sent in text format.
    case int(Int64)

    /// A `bytea[]` in PostgreSQL's binary array format, for `unnest($n::bytea[])`.
    package static func byteaArray(_ elements: [[UInt8]?]) -> SQLParameter {
        var bytes: [UInt8] = []
        func append(_ value: Int32) { withUnsafeBytes(of: value.bigEndian) { bytes.append(contentsOf: $0) } }
        append(1) // dimensions
        append(0) // flags: elements may be null
        append(17) // element type: bytea
        append(Int32(elements.count))
        append(1) // lower bound
        for element in elements {
            guard let element else {
                append(-1)
                continue
            }
            append(Int32(element.count))
            bytes.append(contentsOf: element)
        }
        return .bytes(bytes)
    }
}
