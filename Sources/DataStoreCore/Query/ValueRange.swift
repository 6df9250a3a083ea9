/// An interval of ``Value``'s total order: what a planner scans in an index.
///
/// A range is computed from `==`, `<`, `<=`, `>` and `>=` conditions (see
/// `Condition/range` and `Query/range(on:)`). It is *conservative*: every value that satisfies
/// the conditions lies in the range, but the range may hold values that do not, so the planner
/// re-checks every condition on every document it reads.
public struct ValueRange: Sendable, Hashable, CustomStringConvertible {
    /// One end of a range.
    public struct Bound: Sendable, Hashable {
        /// The value at the end.
        public var value: Value
        /// Whether `value` itself (and every value equal to it, such as `1.0` for `1`) is inside.
        public var isInclusive: Bool

        /// Creates a bound.
        public init(_ value: Value, isInclusive: Bool) {
            self.value = value
            self.isInclusive = isInclusive
        }
    }

    /// The lower end; `nil` when the range starts at the beginning of the order. `nil` when
    /// ``isEmpty``.
    public private(set) var lower: Bound?
    /// The upper end; `nil` when the range runs to the end of the order. `nil` when ``isEmpty``.
    public private(set) var upper: Bound?
    /// Whether no value lies in the range: the conditions contradict each other
    /// (`ts == 1 and ts == 2`, `ts > 5 and ts < 3`, `ts >= 5 and ts < "x"`).
    public private(set) var isEmpty: Bool
    /// Whether the range was made as one value's (``equal(to:)``), so ``equals`` need not compare
    /// its ends; a range equal to one value but made otherwise still compares them.
    private var isOneValue = false

    /// The range from `lower` to `upper` (`nil` for unbounded); empty when `lower` lies above
    /// `upper`, or they are equal and not both inclusive.
    public init(lower: Bound?, upper: Bound?) {
        if let lower, let upper {
            let order = Value.compare(lower.value, upper.value)
            if order > 0 || (order == 0 && !(lower.isInclusive && upper.isInclusive)) {
                self = .empty
                return
            }
        }
        self.lower = lower
        self.upper = upper
        self.isEmpty = false
    }

    /// The range of every value.
    public static let all = ValueRange(lower: nil, upper: nil)

    /// The range of no value.
    public static let empty: ValueRange = {
        var range = ValueRange(lower: nil, upper: nil)
        range.isEmpty = true
        return range
    }()

    /// The range holding exactly the values equal to `value`.
    public static func equal(to value: Value) -> ValueRange {
        // Not through init(lower:upper:): a value always equals itself in the total order (NaN too).
        var range = ValueRange.all
        range.lower = Bound(value, isInclusive: true)
        range.upper = range.lower
        range.isOneValue = true
        return range
    }

    /// The single value (up to ``Value`` equality) the range holds, when its ends are one
    /// inclusive value: what an `==` condition gives. `nil` for a wider or an empty range.
    public var equals: Value? {
        if isOneValue { return lower?.value }
        guard let lower, let upper, lower.isInclusive, upper.isInclusive,
            Value.compare(lower.value, upper.value) == 0
        else { return nil }
        return lower.value
    }

    /// Whether the two ranges hold the same values by the same ends (however they were made).
    public static func == (a: ValueRange, b: ValueRange) -> Bool {
        a.lower == b.lower && a.upper == b.upper && a.isEmpty == b.isEmpty
    }

    /// Hashes the ends, as `==` compares them.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(lower)
        hasher.combine(upper)
        hasher.combine(isEmpty)
    }

    /// Whether `value` lies in the range.
    ///
    /// - Complexity: See ``Value/compare(_:_:)``.
    public func contains(_ value: Value) -> Bool {
        if isEmpty { return false }
        if let lower {
            let order = Value.compare(value, lower.value)
            if order < 0 || (order == 0 && !lower.isInclusive) { return false }
        }
        if let upper {
            let order = Value.compare(value, upper.value)
            if order > 0 || (order == 0 && !upper.isInclusive) { return false }
        }
        return true
    }

    /// The values in both ranges: the higher lower end and the lower upper end (an exclusive end
    /// wins over an inclusive one at the same value).
    ///
    /// - Complexity: See ``Value/compare(_:_:)``.
    public func intersection(_ other: ValueRange) -> ValueRange {
        if isEmpty || other.isEmpty { return .empty }
        return ValueRange(
            lower: ValueRange.pick(lower, other.lower, preferHigher: true),
            upper: ValueRange.pick(upper, other.upper, preferHigher: false))
    }

    /// The tighter of two bounds on the same side.
    private static func pick(_ a: Bound?, _ b: Bound?, preferHigher: Bool) -> Bound? {
        guard let a else { return b }
        guard let b else { return a }
        let order = Value.compare(a.value, b.value)
        if order == 0 { return a.isInclusive ? b : a }
        return (order > 0) == preferHigher ? a : b
    }

    /// `[5, inf]`, `("", "x")`, `(*, 3)` (`*` for an unbounded end), or `empty`.
    public var description: String {
        if isEmpty { return "empty" }
        let low = lower.map { ($0.isInclusive ? "[" : "(") + $0.value.description(limit: Value.planTextLimit) } ?? "(*"
        let high = upper.map { $0.value.description(limit: Value.planTextLimit) + ($0.isInclusive ? "]" : ")") } ?? "*)"
        return low + ", " + high
    }
}

extension ValueRange {
    /// The range holding exactly the values of `value`'s type class that range operators
    /// compare with `value`: `[false, true]`, numbers `[nan, inf]`, strings `["", <>)` (up to the
    /// empty bytes), bytes `[<>, [])` (up to the empty array). `nil` for null, arrays and objects.
    static func typeClass(of value: Value) -> ValueRange? {
        switch value {
        case .bool:
            ValueRange(lower: Bound(.bool(false), isInclusive: true), upper: Bound(.bool(true), isInclusive: true))
        case .int, .double:
            ValueRange(
                lower: Bound(.double(.nan), isInclusive: true), upper: Bound(.double(.infinity), isInclusive: true))
        case .string:
            ValueRange(lower: Bound(.string(""), isInclusive: true), upper: Bound(.bytes([]), isInclusive: false))
        case .bytes:
            ValueRange(lower: Bound(.bytes([]), isInclusive: true), upper: Bound(.array([]), isInclusive: false))
        case .null, .array, .object:
            nil
        }
    }
}

extension ValueRange {
    /// The strings that start with `prefix`: from `prefix` up to, not including, `prefix` with its
    /// last scalar raised by one (UTF-8 byte order is scalar order); every string when `prefix`
    /// is empty or all U+10FFFF.
    static func strings(withPrefix prefix: String) -> ValueRange {
        var scalars = Array(prefix.unicodeScalars)
        while let last = scalars.popLast() {
            var next = last.value + 1
            if next == 0xD800 { next = 0xE000 } // surrogates are not scalars
            if let raised = Unicode.Scalar(next) {
                scalars.append(raised)
                var upper = ""
                upper.unicodeScalars.append(contentsOf: scalars)
                return ValueRange(
                    lower: Bound(.string(prefix), isInclusive: true), upper: Bound(.string(upper), isInclusive: false))
            }
        }
        return typeClass(of: .string(""))!
    }
}

extension Condition {
    /// The values that can satisfy this condition on their own, as a range, or `nil` when the
    /// condition is not a range (`!=`, `in`, or `==` with an array value, which compares whole
    /// arrays).
    ///
    /// `==` gives the one value; a range operator gives its half-interval cut to the value's type
    /// class (`ts >= 5` is `[5, inf]`, not every string above it); a range operator with a value
    /// it cannot compare with (`null`, array, object) gives ``ValueRange/empty``. `^=` gives the
    /// strings with its prefix; `exists true` every value; `exists false`, `!=`, `in` and `!in` none.
    ///
    /// For an array (multi-value) field, a matching document has at least one element in the range.
    package var range: ValueRange? {
        switch op {
        case .equal:
            if case .array = value { return nil }
            return .equal(to: value)
        case .notEqual, .in, .notIn:
            return nil
        case .exists:
            // Present: every value, above the index's *missing*, which sorts below null.
            return value == .bool(true)
                ? ValueRange(lower: ValueRange.Bound(.null, isInclusive: true), upper: nil) : nil
        case .prefix:
            guard case .string(let prefix) = value else { return .empty }
            return ValueRange.strings(withPrefix: prefix)
        case .less, .lessOrEqual, .greater, .greaterOrEqual:
            guard Condition.isOrderable(value), let typeClass = ValueRange.typeClass(of: value) else {
                return .empty
            }
            let bound = ValueRange.Bound(value, isInclusive: op == .lessOrEqual || op == .greaterOrEqual)
            let half =
                op == .less || op == .lessOrEqual
                ? ValueRange(lower: nil, upper: bound) : ValueRange(lower: bound, upper: nil)
            return typeClass.intersection(half)
        }
    }
}

extension Query {
    /// The range of values of `field` that can satisfy all of the query's `==`, `<`, `<=`, `>` and
    /// `>=` conditions on it (those with non-array values), intersected; `nil` when there are
    /// none. An `==` condition narrows the range to one value (``ValueRange/equals``);
    /// contradictory conditions give ``ValueRange/empty``.
    ///
    /// The range is conservative, never narrower than the truth: a scalar value of `field` that
    /// satisfies every condition on `field` lies in it. `!=` and `in` conditions do not narrow it,
    /// so the planner must re-check every condition.
    ///
    /// For an array (multi-value) field, different conditions may be met by different elements
    /// (`["a >=": 5, "a <": 3]` matches `a: [1, 10]` although the intersection is empty): an index
    /// over array elements must use one condition's ``Condition/range`` instead.
    ///
    /// - Complexity: O(*c*) for *c* conditions, plus the value comparisons.
    package func range(on field: String) -> ValueRange? {
        var result: ValueRange?
        for condition in conditions where condition.field == field {
            guard let range = condition.range else { continue }
            result = result.map { $0.intersection(range) } ?? range
        }
        return result
    }
}
