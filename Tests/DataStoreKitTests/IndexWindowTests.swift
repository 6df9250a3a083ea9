import DataStoreCore
import TestSupport
import Testing

@testable import DataStoreKit

/// ``IndexWindow``'s bounds against keys around them: a key is inside when it is not before the
/// start (or starts with it, when inclusive) and not after the end (or starts with it, when
/// inclusive), compared byte by byte with a proper prefix first.
@Suite("Index windows: which keys their bounds let in")
struct IndexWindowTests {
    /// The answer byte arrays' own order gives, for `key` in a window of these bounds.
    private func expected(
        _ key: [UInt8], start: [UInt8], startInclusive: Bool, end: [UInt8]?, endInclusive: Bool
    ) -> Bool {
        let beforeStart =
            key.starts(with: start) ? !startInclusive : key.lexicographicallyPrecedes(start)
        guard let end else { return !beforeStart }
        let afterEnd = key.starts(with: end) ? !endInclusive : !key.lexicographicallyPrecedes(end)
        return !beforeStart && !afterEnd
    }

    @Test(
        "keys of every length around bounds of 0 to 17 bytes, inclusive and exclusive", arguments: [1, 2, 3] as [UInt64]
    )
    func boundsAgainstNearbyKeys(seed: UInt64) {
        var generator = SeededGenerator(seed: seed)
        // Bounds that share long prefixes with the keys, so the word-at-a-time compare is exercised
        // at every offset, and bytes at both ends of the range.
        let alphabet: [UInt8] = [0x00, 0x01, 0x7F, 0x80, 0xFE, 0xFF]
        func randomBytes(_ count: Int) -> [UInt8] {
            (0..<count).map { _ in alphabet.randomElement(using: &generator)! }
        }
        for _ in 0..<1_500 {
            let start = randomBytes(Int.random(in: 0...17, using: &generator))
            let end: [UInt8]? =
                Bool.random(using: &generator) ? nil : randomBytes(Int.random(in: 0...17, using: &generator))
            // Keys that start like a bound, then go their own way.
            let base = Bool.random(using: &generator) ? start : (end ?? start)
            var key = Array(base.prefix(Int.random(in: 0...base.count, using: &generator)))
            key += randomBytes(Int.random(in: 0...10, using: &generator))
            for startInclusive in [false, true] {
                for endInclusive in [false, true] {
                    var window = IndexWindow(idRange: nil, backward: false)
                    window.start = start
                    window.startInclusive = startInclusive
                    window.end = end
                    window.endInclusive = endInclusive
                    #expect(
                        window.contains(key)
                            == expected(
                                key, start: start, startInclusive: startInclusive, end: end,
                                endInclusive: endInclusive),
                        "key \(key), start \(start) \(startInclusive), end \(String(describing: end)) \(endInclusive)")
                }
            }
        }
    }
}
