import TestSupport
import DataStoreCore

/// Random values biased toward the edges: numbers around 0, ±2^53 and the Int64 limits, equal
/// ints and doubles, NaN, infinities, -0.0; strings with NUL, U+0001, combining marks, emoji.
struct ValueGenerator {
    var rng: SeededGenerator

    init(seed: UInt64) { rng = SeededGenerator(seed: seed) }

    mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &rng) }

    mutating func number() -> Value {
        let interesting: [Int64] = [
            0, 1, -1, 2, 42, -42, 1 << 53, (1 << 53) + 1, -(1 << 53) - 1, (1 << 53) - 1,
            1 << 62, (1 << 62) + 1, .max, .max - 1, .min, .min + 1, 1_437_108_600
        ]
        switch int(0...9) {
        case 0: return .int(interesting[int(0...interesting.count - 1)])
        case 1: return .double(Double(interesting[int(0...interesting.count - 1)]))
        case 2: return .int(Int64.random(in: -5...5, using: &rng))
        case 3: return .double(Double(Int64.random(in: -5...5, using: &rng)) / 2)
        case 4: return .int(Int64(bitPattern: rng.next()))
        case 5: return .double(Double(bitPattern: rng.next())) // any bits: NaNs, subnormals, huge
        case 6:
            return .double(
                [
                    .nan, .infinity, -.infinity, -0.0, 0.0, .leastNonzeroMagnitude, .greatestFiniteMagnitude,
                    9_223_372_036_854_775_808.0, -9_223_372_036_854_775_808.0, 9_007_199_254_740_993.0
                ][int(0...9)])
        case 7:
            let base = Double(interesting[int(0...interesting.count - 1)])
            return .double(Bool.random(using: &rng) ? base.nextUp : base.nextDown)
        case 8:
            return .int(
                Int64.random(in: (1 << 53)...(1 << 53) + 4096, using: &rng) * (Bool.random(using: &rng) ? 1 : -1))
        default: return .double(Double.random(in: -1e6...1e6, using: &rng))
        }
    }

    mutating func string(maxLength: Int = 6) -> String {
        let pieces = [
            "a", "b", "z", "\0", "\u{1}", "\u{7F}", "é", "e\u{301}", "ß", "\u{FFFF}", "😀", "A", " ", "ab", "\u{FF}"
        ]
        var text = ""
        for _ in 0..<int(0...maxLength) { text += pieces[int(0...pieces.count - 1)] }
        return text
    }

    mutating func bytes(maxLength: Int = 6) -> [UInt8] {
        let pool: [UInt8] = [0, 1, 2, 0x7F, 0x80, 0xFE, 0xFF]
        return (0..<int(0...maxLength)).map { _ in pool[int(0...pool.count - 1)] }
    }

    mutating func value(depth: Int = 2) -> Value {
        switch int(0...(depth > 0 ? 9 : 7)) {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &rng))
        case 2, 3, 4: return number()
        case 5, 6: return .string(string())
        case 7: return .bytes(bytes())
        case 8: return .array((0..<int(0...3)).map { _ in value(depth: depth - 1) })
        default: return .object(document(depth: depth - 1))
        }
    }

    mutating func document(depth: Int = 2, maxFields: Int = 4) -> Document {
        var document = Document()
        for _ in 0..<int(0...maxFields) { document[string(maxLength: 3)] = value(depth: depth) }
        return document
    }
}

/// Structural identity: the same case, the same double bits (NaN payloads, -0.0) and the same
/// string bytes — stricter than `Value ==`, which is numeric and so forgets int versus double.
func identical(_ a: Value, _ b: Value) -> Bool {
    switch (a, b) {
    case (.null, .null): true
    case (.bool(let x), .bool(let y)): x == y
    case (.int(let x), .int(let y)): x == y
    case (.double(let x), .double(let y)): x.bitPattern == y.bitPattern
    case (.string(let x), .string(let y)): Array(x.utf8) == Array(y.utf8)
    case (.bytes(let x), .bytes(let y)): x == y
    case (.array(let x), .array(let y)): x.count == y.count && zip(x, y).allSatisfy(identical)
    case (.object(let x), .object(let y)): identical(x, y)
    default: false
    }
}

func identical(_ a: Document, _ b: Document) -> Bool {
    let x = a.sortedFields, y = b.sortedFields
    return x.count == y.count
        && zip(x, y).allSatisfy { Array($0.name.utf8) == Array($1.name.utf8) && identical($0.value, $1.value) }
}

/// Unsigned lexicographic comparison, -1/0/1.
func compareBytes(_ a: [UInt8], _ b: [UInt8]) -> Int {
    for (x, y) in zip(a, b) where x != y { return x < y ? -1 : 1 }
    return a.count == b.count ? 0 : (a.count < b.count ? -1 : 1)
}

/// Parses "01 0A FF" into bytes.
func hex(_ text: String) -> [UInt8] {
    text.split(separator: " ").map { UInt8($0, radix: 16)! }
}

func hexString(_ bytes: [UInt8]) -> String {
    bytes.map { $0 < 16 ? "0" + String($0, radix: 16, uppercase: true) : String($0, radix: 16, uppercase: true) }
        .joined(separator: " ")
}
