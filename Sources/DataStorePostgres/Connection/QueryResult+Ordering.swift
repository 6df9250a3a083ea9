#if canImport(Glibc)
import Glibc
#endif

extension QueryResult {
    /// Whether `a` comes before `b` in byte order (a prefix first), as `bytea` and LMDB compare.
    static func precedes(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
        let shared = min(a.count, b.count)
        if shared > 0, let left = a.baseAddress, let right = b.baseAddress {
            let order = memcmp(left, right, shared)
            if order != 0 { return order < 0 }
        }
        return a.count < b.count
    }
}
