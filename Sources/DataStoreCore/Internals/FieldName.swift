/// Equality of two field names' bytes at known-valid addresses, for the field lookups: names are
/// short, so whole words (two overlapping loads for any length from 4 up) beat a byte loop or
/// a call to `memcmp`.
enum FieldName {
    /// Whether the `count` bytes at `a` and at `b` are the same; `count` is at least 1.
    @inline(__always)
    static func equal(_ a: UnsafeRawPointer, _ b: UnsafeRawPointer, count: Int) -> Bool {
        if count >= 8 {
            var index = 0
            while index + 8 < count {
                guard
                    a.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                        == b.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                else { return false }
                index += 8
            }
            return a.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
                == b.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
        }
        if count >= 4 {
            return a.loadUnaligned(as: UInt32.self) == b.loadUnaligned(as: UInt32.self)
                && a.loadUnaligned(fromByteOffset: count - 4, as: UInt32.self)
                    == b.loadUnaligned(fromByteOffset: count - 4, as: UInt32.self)
        }
        // One to three bytes: the first, the middle and the last cover them all.
        return a.load(as: UInt8.self) == b.load(as: UInt8.self)
            && a.load(fromByteOffset: count / 2, as: UInt8.self) == b.load(fromByteOffset: count / 2, as: UInt8.self)
            && a.load(fromByteOffset: count - 1, as: UInt8.self) == b.load(fromByteOffset: count - 1, as: UInt8.self)
    }
}
