/// The common shapes of a query key, told apart in one pass over its bytes: `"field"` or
/// `"field OP"` in printable ASCII, with one inner space at most.
enum QueryKeyShape {
    case field
    /// The byte offset of the space.
    case fieldAndOperator(space: Int)
    /// Anything else (the general parse and its errors).
    case other

    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        var space: Int?
        for (offset, byte) in bytes.enumerated() {
            if byte == 0x20 {
                guard space == nil else {
                    self = .other
                    return
                }
                space = offset
            } else if byte < 0x20 || byte >= 0x7F {
                self = .other
                return
            }
        }
        if let space {
            self = space == 0 || space == bytes.count - 1 ? .other : .fieldAndOperator(space: space)
        } else {
            self = bytes.isEmpty ? .other : .field
        }
    }

    init(_ bytes: [UInt8]) {
        self = bytes.withUnsafeBufferPointer(QueryKeyShape.init)
    }
}
