import DataStoreCore
import Testing

@Suite("KeyCodec")
struct KeyCodecTests {
    static func key(_ value: Value, descending: Bool = false) -> [UInt8] {
        var key: [UInt8] = []
        KeyCodec.append(value, to: &key, descending: descending)
        return key
    }

    @Test("byte order equals value order, ascending and descending", arguments: [UInt64(11), 12, 13, 14])
    func orderProperty(seed: UInt64) {
        var generator = ValueGenerator(seed: seed)
        let values = (0..<160).map { _ in generator.value() }
        let ascending = values.map { Self.key($0) }
        let descending = values.map { Self.key($0, descending: true) }
        for i in values.indices {
            for j in values.indices {
                let order = Value.compare(values[i], values[j])
                #expect(compareBytes(ascending[i], ascending[j]) == order, "\(values[i]) vs \(values[j])")
                #expect(compareBytes(descending[i], descending[j]) == -order, "desc \(values[i]) vs \(values[j])")
            }
        }
    }

    @Test("composite keys sort by component, whatever the directions", arguments: [UInt64(21), 22])
    func compositeOrder(seed: UInt64) throws {
        var generator = ValueGenerator(seed: seed)
        let directions = [false, true, false]
        // Few distinct first components, so later components decide often.
        let pool = (0..<6).map { _ in generator.value(depth: 1) }
        let tuples: [[Value]] = (0..<150).map { _ in (0..<3).map { _ in pool[generator.int(0...5)] } }
        let keys = tuples.map { tuple in KeyCodec.encode(zip(tuple, directions).map { (value: $0, descending: $1) }) }
        for i in tuples.indices {
            for j in tuples.indices {
                var expected = 0
                for (index, descending) in directions.enumerated() {
                    let order = Value.compare(tuples[i][index], tuples[j][index])
                    if order != 0 {
                        expected = descending ? -order : order
                        break
                    }
                }
                #expect(compareBytes(keys[i], keys[j]) == expected)
            }
            let components = try KeyCodec.decodeComponents(keys[i])
            #expect(components.map(\.isDescending) == directions)
            #expect(components.map(\.value) == tuples[i])
            #expect(try KeyCodec.decode(keys[i], descending: directions) == tuples[i])
        }
    }

    @Test("decoding returns an equal value, and re-encoding gives the same bytes", arguments: [UInt64(31), 32])
    func roundTrip(seed: UInt64) throws {
        var generator = ValueGenerator(seed: seed)
        for _ in 0..<500 {
            let value = generator.value()
            let descending = Bool.random(using: &generator.rng)
            let key = Self.key(value, descending: descending)
            let components = try KeyCodec.decodeComponents(key)
            #expect(components.count == 1)
            #expect(components[0].value == value)
            #expect(components[0].isDescending == descending && !components[0].isTruncated)
            #expect(Self.key(components[0].value, descending: descending) == key)
        }
    }

    @Test("large integers stay exact: no collisions beyond 2^53")
    func largeIntegers() throws {
        let base: Int64 = 1 << 53
        var previous: [UInt8] = []
        for offset in Int64(-3)...4100 {
            let key = Self.key(.int(base + offset))
            #expect(compareBytes(previous, key) < 0)
            #expect(try KeyCodec.decode(key) == [.int(base + offset)])
            previous = key
        }
        for number in [Int64.max, .max - 1, .max - 1023, .min, .min + 1, -base - 1] {
            #expect(try KeyCodec.decode(Self.key(.int(number))) == [.int(number)])
        }
        #expect(compareBytes(Self.key(.int(.max)), Self.key(.double(9_223_372_036_854_775_808.0))) < 0)
    }

    @Test("equal numbers share one key: 1 and 1.0, 0.0 and -0.0, every NaN")
    func canonicalNumbers() {
        #expect(Self.key(1) == Self.key(1.0))
        #expect(Self.key(0.0) == Self.key(.double(-0.0)))
        #expect(Self.key(.double(.nan)) == Self.key(.double(Double(bitPattern: 0xFFF8_0000_0000_0001))))
    }

    @Test("a key with wrong directions or component count is rejected")
    func directionMismatch() {
        let key = KeyCodec.encode([(value: "a", descending: false), (value: 1, descending: true)])
        #expect(throws: CodecError.self) { try KeyCodec.decode(key, descending: [false, false]) }
        #expect(throws: CodecError.self) { try KeyCodec.decode(key, descending: [false]) }
    }

    @Test("malformed keys throw: every strict prefix, every single-byte change")
    func malformed() {
        var generator = ValueGenerator(seed: 41)
        for _ in 0..<150 {
            let key = KeyCodec.encode([
                (value: generator.value(), descending: false), (value: generator.value(), descending: true)
            ])
            for length in 0..<key.count {
                // A prefix may end exactly between components; then it must decode to the first.
                let prefix = Array(key[..<length])
                if let components = try? KeyCodec.decodeComponents(prefix) {
                    #expect(components.count <= 1)
                }
            }
            for index in key.indices {
                var damaged = key
                damaged[index] ^= UInt8(truncatingIfNeeded: generator.rng.next() | 1)
                // Whatever it decodes to, it must be canonical: re-encoding gives the same bytes.
                if let components = try? KeyCodec.decodeComponents(damaged), !components.contains(where: \.isTruncated)
                {
                    #expect(
                        KeyCodec.encode(components.map { (value: $0.value, descending: $0.isDescending) }) == damaged)
                }
            }
        }
        #expect(throws: CodecError.self) {
            try KeyCodec.decode(Array(repeating: 0x60, count: 200) + Array(repeating: 0, count: 200))
        }
    }
}
