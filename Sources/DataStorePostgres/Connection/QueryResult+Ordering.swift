internal import CPostgres

#if canImport(Glibc)
import Glibc
#endif

extension QueryResult {
    /// Whether `rows` are in ascending byte order of their values in `column` (`NULL` first).
    func isOrdered(_ rows: [Int], byColumn column: Int) -> Bool {
        zip(rows, rows.dropFirst()).allSatisfy { compare($0, $1, column) <= 0 }
    }

    /// Sorts `rows` into ascending byte order of their values in `column` (`NULL` first),
    /// comparing the bytes where libpq holds them.
    func sort(_ rows: inout [Int], byColumn column: Int) {
        rows.sort { compare($0, $1, column) < 0 }
    }

    /// The byte order of the values of rows `a` and `b` in `column`: negative, zero or positive.
    private func compare(_ a: Int, _ b: Int, _ column: Int) -> Int {
        withBytes(a, column) { left in
            withBytes(b, column) { right in
                guard let left, let right else { return (left == nil ? 0 : 1) - (right == nil ? 0 : 1) }
                let shared = min(left.count, right.count)
                if shared > 0, let l = left.baseAddress, let r = right.baseAddress {
                    let order = memcmp(l, r, shared)
                    if order != 0 { return Int(order) }
                }
                return left.count - right.count
            }
        }
    }
}
