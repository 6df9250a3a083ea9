public import DataStoreCore

/// Doubles that stress a number reader or writer, for the tests that check values come back bit
/// for bit: any finite bit pattern, subnormals, 17-significant-digit timestamps and decimals at
/// every exponent, ±0 and the extremes.
public enum NumberSamples {
    /// `count` doubles drawn from `seed`, the edge cases first.
    public static func doubles(count: Int, seed: UInt64) -> [Double] {
        var rng = SeededGenerator(seed: seed)
        var doubles: [Double] = [
            0.0, -0.0, .leastNonzeroMagnitude, -.leastNonzeroMagnitude,
            .leastNormalMagnitude, .greatestFiniteMagnitude, -.greatestFiniteMagnitude,
            1437108600.8203685, 0.1, 1e23, 0x1p53 + 2
        ]
        while doubles.count < count {
            switch rng.next() % 4 {
            case 0:
                let value = Double(bitPattern: rng.next())
                if value.isFinite { doubles.append(value) }
            case 1:
                doubles.append(Double(bitPattern: rng.next() & 0x800F_FFFF_FFFF_FFFF))
            case 2:
                doubles.append(
                    1_437_108_600 + Double(rng.next() % 1_000_000_000) / 1e9 + Double(rng.next() % 100) * 1e-8)
            default:
                let digits = 10_000_000_000_000_000 + rng.next() % 90_000_000_000_000_000
                let exponent = Int(rng.next() % 600) - 300
                if let value = Double("\(digits)e\(exponent)"), value.isFinite { doubles.append(value) }
            }
        }
        return Array(doubles.prefix(count))
    }

    /// Tallies values read back against the doubles they were written from, bit for bit.
    public struct BitComparison: Sendable {
        /// Values that came back as the very double written.
        public private(set) var identical = 0
        /// The first few that did not, described.
        public private(set) var mismatches: [String] = []

        public init() {}

        /// Compares `values`, read back, with `written`, the doubles they were written from.
        public mutating func compare(_ values: [Value], with written: ArraySlice<Double>) {
            for (value, original) in zip(values, written) {
                if case .double(let read) = value, read.bitPattern == original.bitPattern {
                    identical += 1
                } else if mismatches.count < 5 {
                    mismatches.append("\(original) came back as \(value)")
                }
            }
        }
    }

    /// Integers at and around the edges of `Int64`.
    public static let integerEdges: [Int64] = [
        .min, .min + 1, -1_000_000_000_000_000_001, -1_000_000_000_000_000_000, -1, 0, 1,
        1_000_000_000_000_000_000, 1_000_000_000_000_000_001, .max - 1, .max
    ]
}
