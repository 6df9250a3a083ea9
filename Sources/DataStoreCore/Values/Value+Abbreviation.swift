extension Value {
    /// The ``description``, cut to about `limit` bytes when longer and followed by the value's
    /// size: `"xxxx…" (2000 bytes)` for a string or bytes, `[1, 2, …] (5000 bytes of text)` for
    /// other values. Plans and messages show values this way so a long value is not printed whole.
    ///
    /// - Complexity: O(*n*) in the size of the value.
    package func description(limit: Int) -> String {
        let full = description
        guard full.utf8.count > limit else { return full }
        var cut = ""
        var size = 0
        for scalar in full.unicodeScalars {
            size += UTF8.width(scalar)
            if size > limit { break }
            cut.unicodeScalars.append(scalar)
        }
        switch self {
        case .string(let text): return cut + "…\" (\(text.utf8.count) bytes)"
        case .bytes(let bytes): return cut + "…> (\(bytes.count) bytes)"
        default: return cut + "… (\(full.utf8.count) bytes of text)"
        }
    }

    /// How many bytes of a value plans and explain text show.
    package static let planTextLimit = 64
}
