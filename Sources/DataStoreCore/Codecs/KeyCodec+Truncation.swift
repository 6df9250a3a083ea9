extension KeyCodec {
    /// Appends one key component for `value`, cut to at most `maxBytes` bytes if it is longer.
    ///
    /// LMDB rejects keys over ``maxKeyBytes``, and an index must not fail or drop an entry because
    /// a value is long, so each component gets a byte budget. A cut ends the component with a
    /// truncation marker (docs/encoding.md, "Truncation"). With the same `maxBytes`:
    ///
    /// - *Order:* `a < b` implies `key(a) <= key(b)`, and `key(a) < key(b)` implies `a < b`;
    ///   a range scan therefore finds every matching entry, and entries that share a truncated key
    ///   must be re-checked against the stored value.
    /// - *Detectable:* the result is `true`, and ``decodeComponents(_:)-(UnsafeRawBufferPointer)``
    ///   reports ``Component/isTruncated``.
    /// - *Prefix-determined:* two strings (or byte strings) that agree on their first
    ///   `maxBytes - 3` bytes and are both cut produce identical components; a string whose
    ///   escaped length is at most `maxBytes - 3` is never cut.
    /// - When nothing is cut, the bytes are exactly those of ``append(_:to:descending:)``. Strings
    ///   and bytes are cut exactly when their full component exceeds `maxBytes`; arrays and objects
    ///   may be cut up to 12 bytes early (each element position reserves room for a number).
    ///
    /// - Parameters:
    ///   - value: The value.
    ///   - key: The key being built.
    ///   - descending: Whether this component sorts in reverse. The component is cut first, then
    ///     inverted, so every guarantee holds in reverse.
    ///   - maxBytes: The budget for this component, at least ``minimumComponentBytes``.
    /// - Returns: Whether the value was cut.
    /// - Complexity: O(min(*n*, `maxBytes`)) in the size of `value` (plus sorting object fields).
    @discardableResult
    package static func appendTruncating(_ value: Value, to key: inout [UInt8], descending: Bool = false, maxBytes: Int)
        -> Bool
    {
        precondition(
            maxBytes >= minimumComponentBytes,
            "maxBytes \(maxBytes) is below KeyCodec.minimumComponentBytes (\(minimumComponentBytes))")
        let start = key.count
        let writer = TruncatingWriter(limit: start + maxBytes)
        let cut = writer.write(value, to: &key, closing: 0)
        if descending { invert(&key, from: start) }
        return cut
    }
}

/// The greedy writer of docs/encoding.md "Truncation": it writes a piece only if, afterwards,
/// everything open can still be closed within the budget; otherwise it writes a marker and stops.
/// Its decisions depend only on what it has already written, which is what makes equal prefixes
/// truncate identically and keeps the order.
private struct TruncatingWriter {
    /// The key length this component must not exceed.
    let limit: Int

    /// The largest element that is written whole: a number with its 3-byte suffix (1 + 8 + 3).
    static let largestFixedElement = 12

    /// Writes `value`; `closing` is the bytes needed to close the containers around it.
    /// Returns `true` once a marker was written (the whole component then ends).
    func write(_ value: Value, to key: inout [UInt8], closing: Int) -> Bool {
        switch value {
        case .null, .bool, .int, .double:
            KeyCodec.appendAscending(value, to: &key) // fits: checked at the element position
            return false
        case .string(var text):
            key.append(KeyCodec.Tag.string)
            return text.withUTF8 { writeContent(UnsafeRawBufferPointer($0), to: &key, closing: closing) }
        case .bytes(let raw):
            key.append(KeyCodec.Tag.bytes)
            return raw.withUnsafeBytes { writeContent($0, to: &key, closing: closing) }
        case .array(let elements):
            key.append(KeyCodec.Tag.array)
            for element in elements {
                if cutAtElement(&key, closing: closing + 1) { return true }
                if write(element, to: &key, closing: closing + 1) { return true }
            }
            key.append(KeyCodec.Marker.containerEnd)
            return false
        case .object(let document):
            key.append(KeyCodec.Tag.object)
            for field in document.sortedFields {
                if cutAtElement(&key, closing: closing + 1) { return true }
                if write(.string(field.name), to: &key, closing: closing + 1) { return true }
                if cutAtElement(&key, closing: closing + 1) { return true }
                if write(field.value, to: &key, closing: closing + 1) { return true }
            }
            key.append(KeyCodec.Marker.containerEnd)
            return false
        }
    }

    /// At an element position: writes the element marker and returns `true` unless the largest
    /// element could start here, inside fewer than ``KeyCodec/maxDepth`` open containers — the
    /// same test whatever the element's type. (`closing` is one byte per open container, so the
    /// second bound keeps the writer's recursion, and the key's nesting, within what decodes.)
    private func cutAtElement(_ key: inout [UInt8], closing: Int) -> Bool {
        guard key.count + Self.largestFixedElement + closing > limit || closing >= KeyCodec.maxDepth else {
            return false
        }
        key.append(KeyCodec.Marker.truncatedElement)
        return true
    }

    /// Writes escaped content byte by byte while `00 01` and the enclosing terminators still fit.
    private func writeContent(_ content: UnsafeRawBufferPointer, to key: inout [UInt8], closing: Int) -> Bool {
        let reserve = 2 + closing
        if key.count + content.count + reserve <= limit, !content.contains(0) {
            key.append(contentsOf: content) // fast path: fits whole, nothing to escape
        } else {
            for byte in content {
                let piece = byte == 0 ? 2 : 1
                guard key.count + piece + reserve <= limit else {
                    key.append(0)
                    key.append(KeyCodec.Marker.truncatedEnd)
                    return true
                }
                key.append(byte)
                if byte == 0 { key.append(KeyCodec.Marker.escapedZero) }
            }
        }
        key.append(0)
        key.append(KeyCodec.Marker.end)
        return false
    }
}
