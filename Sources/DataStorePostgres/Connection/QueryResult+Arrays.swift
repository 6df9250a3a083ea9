extension QueryResult {
    /// The `bytea[]` at `row`, `column` in PostgreSQL's binary array format (`nil` elements
    /// skipped), or `nil` for `NULL` or bytes that are not a one-dimensional array.
    package func byteaArray(_ row: Int, _ column: Int) -> [[UInt8]]? {
        withBytes(row, column) { bytes -> [[UInt8]]? in
            guard let bytes else { return nil }
            var offset = 0
            func integer() -> Int32? {
                guard offset + 4 <= bytes.count else { return nil }
                defer { offset += 4 }
                return bytes[offset..<offset + 4].reduce(Int32(0)) { $0 << 8 | Int32($1) }
            }
            guard let dimensions = integer(), integer() != nil, integer() != nil else { return nil }
            if dimensions == 0 { return [] }
            guard dimensions == 1, let count = integer(), count >= 0, integer() != nil else { return nil }
            var elements: [[UInt8]] = []
            elements.reserveCapacity(Int(count))
            for _ in 0..<count {
                guard let length = integer() else { return nil }
                if length < 0 { continue }
                guard offset + Int(length) <= bytes.count else { return nil }
                elements.append(Array(bytes[offset..<offset + Int(length)]))
                offset += Int(length)
            }
            return elements
        }
    }

    /// The `bool` at `row`, `column` in binary format, or `nil` for `NULL`.
    package func bool(_ row: Int, _ column: Int) -> Bool? {
        withBytes(row, column) { $0?.first.map { $0 != 0 } }
    }
}
