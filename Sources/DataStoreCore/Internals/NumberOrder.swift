/// Exact comparison of numbers across `Int64` and `Double`.
///
/// Converting an `Int64` to `Double` rounds above 2^53, which would make `2^53 + 1 == 2^53`;
/// these functions compare mathematical values exactly instead.
enum NumberOrder {
    /// 2^63 as a `Double`: the first double above every `Int64`.
    static let twoToThe63: Double = 9_223_372_036_854_775_808.0

    /// Returns -1, 0 or 1 for doubles, with every NaN equal to every NaN and below every other
    /// number, and `-0.0 == 0.0`.
    @inline(__always)
    static func compare(_ a: Double, _ b: Double) -> Int {
        if a < b { return -1 }
        if a > b { return 1 }
        if a == b { return 0 } // includes -0.0 == 0.0
        // At least one is NaN.
        return a.isNaN ? (b.isNaN ? 0 : -1) : 1
    }

    /// Returns -1, 0 or 1 as the integer `i` is below, equal to or above the double `d`, exactly.
    static func compare(_ i: Int64, _ d: Double) -> Int {
        if d.isNaN { return 1 }
        if d >= twoToThe63 { return -1 }
        if d < -twoToThe63 { return 1 }
        // Now -2^63 <= d < 2^63, so its integral part converts to Int64 exactly.
        let whole = d.rounded(.towardZero)
        let wholeInt = Int64(whole)
        if i != wholeInt { return i < wholeInt ? -1 : 1 }
        // Equal integral parts: the fraction decides.
        return d > whole ? -1 : (d < whole ? 1 : 0)
    }

    /// The largest `Double` that is less than or equal to `i` (rounding toward −∞),
    /// and how far `i` lies above it (0 … 2047).
    static func floorDouble(_ i: Int64) -> (double: Double, delta: Int64) {
        var d = Double(i) // rounds to nearest, so may land above i
        if compare(i, d) < 0 { d = d.nextDown }
        // d ≤ i < 2^63 and d ≥ -2^63 (which is exact), so Int64(d) is exact.
        return (d, i - Int64(d))
    }
}
