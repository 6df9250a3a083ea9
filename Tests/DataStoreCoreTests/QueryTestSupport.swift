import TestSupport
import DataStoreCore

/// The property tests' generator: ``SeededGenerator`` with a few helpers.
struct QueryRandom: RandomNumberGenerator {
    private var generator: SeededGenerator

    init(seed: UInt64) {
        generator = SeededGenerator(seed: seed)
    }

    mutating func next() -> UInt64 { generator.next() }

    /// One of `choices`.
    mutating func pick<T>(_ choices: [T]) -> T {
        choices[Int.random(in: 0..<choices.count, using: &self)]
    }

    /// True with probability `p`.
    mutating func chance(_ p: Double) -> Bool {
        Double.random(in: 0..<1, using: &self) < p
    }

    /// A scalar drawn from a small pool, so that equal values and ties are common: null, bools,
    /// ints and doubles (including 1 and 1.0, -0.0, NaN and the infinities), short strings, bytes.
    mutating func scalar() -> Value {
        switch Int.random(in: 0..<10, using: &self) {
        case 0: return .null
        case 1: return .bool(chance(0.5))
        case 2, 3: return .int(Int64.random(in: -3...3, using: &self))
        case 4: return .double(pick([-2.5, -0.0, 0.0, 1.0, 1.5, 3.0, .infinity, -.infinity, .nan]))
        case 5: return .int(pick([Int64.min, Int64.max, 1 << 53, (1 << 53) + 1]))
        case 6, 7: return .string(pick(["", "a", "ab", "b", "é", "e\u{301}", "z"]))
        default: return .bytes(pick([[], [0], [0, 1], [1], [255]]))
        }
    }

    /// A scalar, or sometimes a short array of scalars (a multi-value field).
    mutating func fieldValue() -> Value {
        if chance(0.2) {
            return .array((0..<Int.random(in: 0...3, using: &self)).map { _ in scalar() })
        }
        return scalar()
    }

    /// A document with id `index` and some of the fields `a`, `b`, `c`.
    mutating func document(index: Int) -> Document {
        var document: Document = ["id": .int(Int64(index))]
        for field in ["a", "b", "c"] where chance(0.8) {
            document[field] = fieldValue()
        }
        return document
    }

    /// A random condition on one of `a`, `b`, `c`, in any form `Query(conditions:)` accepts.
    mutating func condition() -> Condition {
        let op = pick(Operator.allCases)
        let value: Value
        switch op {
        case .in, .notIn: value = .array((0..<Int.random(in: 0...3, using: &self)).map { _ in scalar() })
        case .exists: value = .bool(chance(0.5))
        case .prefix: value = .string(pick(["", "a", "b", "ab", "x"]))
        default: value = chance(0.1) ? fieldValue() : scalar()
        }
        return Condition(field: pick(["a", "b", "c"]), op: op, value: value)
    }
}

/// The error `Query(params:options:)` throws, or `nil` when it parses.
func queryError(params: [String: Value]? = nil, options: [String: Value]? = nil) -> DataStoreError? {
    do {
        _ = try Query(params: params, options: options)
        return nil
    } catch {
        return error
    }
}
