/// Byte-wise comparison of strings.
///
/// Swift's `String ==` and `<` use Unicode canonical equivalence, which neither the key encoding
/// nor LMDB can reproduce; `Value` instead orders strings by UTF-8 bytes (which is also Unicode
/// scalar order), so the in-memory order and the on-disk order are the same order.
enum UTF8Order {
    /// Returns -1, 0 or 1 as `a`'s UTF-8 bytes sort before, equal or after `b`'s.
    ///
    /// - Complexity: O(min(*a*, *b*)) in the byte lengths.
    static func compare(_ a: String, _ b: String) -> Int {
        // Borrowing the contiguous bytes copies neither string (no retain and release per
        // comparison, which a sort of field names pays many times); `withUTF8` is the fallback.
        let borrowed = a.utf8.withContiguousStorageIfAvailable { x in
            b.utf8.withContiguousStorageIfAvailable { y in compare(UnsafeRawBufferPointer(x), UnsafeRawBufferPointer(y))
            }
        }
        if let borrowed, let order = borrowed { return order }
        var a = a, b = b // `withUTF8` is mutating; it makes a bridged or shared string contiguous
        return a.withUTF8 { x in b.withUTF8 { y in compare(UnsafeRawBufferPointer(x), UnsafeRawBufferPointer(y)) } }
    }

    /// Returns -1, 0 or 1 as `x` sorts before, equal or after `y`, unsigned bytes, a proper prefix first.
    ///
    /// - Complexity: O(min(*x*, *y*)).
    @inline(__always)
    static func compare(_ x: UnsafeRawBufferPointer, _ y: UnsafeRawBufferPointer) -> Int {
        let common = Swift.min(x.count, y.count)
        var index = 0
        // Compare eight bytes at a time; big-endian loads make the integer order the byte order.
        while index + 8 <= common {
            let p = UInt64(bigEndian: x.loadUnaligned(fromByteOffset: index, as: UInt64.self))
            let q = UInt64(bigEndian: y.loadUnaligned(fromByteOffset: index, as: UInt64.self))
            if p != q { return p < q ? -1 : 1 }
            index += 8
        }
        while index < common {
            let p = x[index], q = y[index]
            if p != q { return p < q ? -1 : 1 }
            index += 1
        }
        return x.count == y.count ? 0 : (x.count < y.count ? -1 : 1)
    }

    /// Whether `a` and `b` hold the same bytes.
    @inline(__always)
    static func equal(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
        let count = a.count
        guard count == b.count else { return false }
        guard count >= 8 else {
            for index in 0..<count where a[index] != b[index] { return false }
            return true
        }
        var index = 0
        while index + 8 <= count {
            guard
                a.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                    == b.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            else {
                return false
            }
            index += 8
        }
        return a.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
            == b.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
    }

    /// Calls `body` with the UTF-8 bytes of `string`, keeping a typed `CodecError` typed
    /// (`String.withUTF8` rethrows untyped errors).
    static func withBytes<R>(of string: String, _ body: (UnsafeRawBufferPointer) throws(CodecError) -> R)
        throws(CodecError) -> R
    {
        var string = string
        let result: Result<R, CodecError> = string.withUTF8 { utf8 in
            do throws(CodecError) { return .success(try body(UnsafeRawBufferPointer(utf8))) } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// Feeds the UTF-8 bytes of `string`, and their count, to `hasher`.
    static func hash(_ string: String, into hasher: inout Hasher) {
        var string = string
        string.withUTF8 { buffer in
            hasher.combine(buffer.count) // the count keeps ("ab","c") and ("a","bc") apart
            hasher.combine(bytes: UnsafeRawBufferPointer(buffer))
        }
    }
}
