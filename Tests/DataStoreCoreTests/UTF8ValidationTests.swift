import TestSupport
import Testing
@testable import DataStoreCore

/// The record decoders' own UTF-8 validator must accept exactly what the standard library's
/// strict validator accepts, and build the same string.
@Suite("UTF8Validation")
struct UTF8ValidationTests {
    /// Checks `bytes` alone and behind ASCII runs of every length modulo 8, so that each byte
    /// meets the word-at-a-time ASCII skip at every alignment and at the end of the input.
    private func check(_ bytes: [UInt8]) {
        for padding in [0, 1, 3, 7, 8, 9, 15] {
            for trailing in [0, 1, 8] {
                let input =
                    Array(repeating: UInt8(ascii: "a"), count: padding) + bytes
                    + Array(repeating: UInt8(ascii: "z"), count: trailing)
                let expected = String(validating: input, as: UTF8.self)
                let actual = input.withUnsafeBytes { UTF8Validation.string($0) }
                #expect(actual.map { Array($0.utf8) } == expected.map { Array($0.utf8) }, "\(hexString(input))")
                let isASCII = input.withUnsafeBytes { UTF8Validation.validate($0) }
                #expect(isASCII == expected.map { _ in input.allSatisfy { $0 < 0x80 } }, "\(hexString(input))")
            }
        }
    }

    @Test("every one- and two-byte input")
    func shortInputs() {
        for a in 0...255 {
            check([UInt8(a)])
            for b in stride(from: 0, through: 255, by: 1) where a >= 0x80 || b >= 0x80 {
                let input = [UInt8(a), UInt8(b)]
                let expected = String(validating: input, as: UTF8.self)
                let actual = input.withUnsafeBytes { UTF8Validation.string($0) }
                #expect(actual.map { Array($0.utf8) } == expected.map { Array($0.utf8) }, "\(hexString(input))")
            }
        }
    }

    @Test("three- and four-byte sequences around every boundary of Unicode Table 3-7")
    func boundaries() {
        let leads: [UInt8] = [
            0xC0, 0xC1, 0xC2, 0xDF, 0xE0, 0xE1, 0xEC, 0xED, 0xEE, 0xEF, 0xF0, 0xF1, 0xF3, 0xF4, 0xF5, 0xFF
        ]
        let continuations: [UInt8] = [0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xFF]
        for lead in leads {
            for second in continuations {
                check([lead, second])
                for third in continuations {
                    check([lead, second, third])
                    for fourth in [0x41, 0x80, 0xBF, 0xC0] as [UInt8] { check([lead, second, third, fourth]) }
                }
            }
        }
    }

    @Test("random text mixing ASCII runs and multi-byte characters, some of it damaged", arguments: [UInt64(91), 92])
    func randomText(seed: UInt64) {
        var rng = SeededGenerator(seed: seed)
        let pieces: [[UInt8]] =
            ["a", "0123456789", "é", "—", "😀", "\u{10FFFF}", "\u{FFFF}", "\0"].map { Array($0.utf8) }
            + [[0x80], [0xC3], [0xE2, 0x80], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xFF]]
        for _ in 0..<2_000 {
            var input: [UInt8] = []
            for _ in 0..<Int.random(in: 0...12, using: &rng) {
                input += pieces[Int.random(in: 0..<pieces.count, using: &rng)]
            }
            let expected = String(validating: input, as: UTF8.self)
            let actual = input.withUnsafeBytes { UTF8Validation.string($0) }
            #expect(actual.map { Array($0.utf8) } == expected.map { Array($0.utf8) }, "\(hexString(input))")
            #expect(actual == nil || actual!.utf8.elementsEqual(input))
        }
    }
}
