import DataStoreCore
import Testing

@Suite("KeyCodec truncation")
struct KeyCodecTruncationTests {
    static func truncated(_ value: Value, maxBytes: Int, descending: Bool = false) -> (key: [UInt8], cut: Bool) {
        var key: [UInt8] = []
        let cut = KeyCodec.appendTruncating(value, to: &key, descending: descending, maxBytes: maxBytes)
        return (key, cut)
    }

    /// Long values around shared prefixes, so cuts land on every kind of boundary.
    static func longValues(seed: UInt64, count: Int) -> [Value] {
        var generator = ValueGenerator(seed: seed)
        let stems = (0..<4).map { _ in String(repeating: generator.string(maxLength: 3), count: generator.int(1...12)) }
        return (0..<count).map { _ in
            let stem = stems[generator.int(0...3)]
            switch generator.int(0...5) {
            case 0: return .string(stem + generator.string(maxLength: 40))
            case 1: return .bytes(Array(stem.utf8) + generator.bytes(maxLength: 40))
            case 2:
                return .array(
                    (0..<generator.int(0...8)).map { _ in generator.int(0...1) == 0 ? .string(stem) : generator.number()
                    })
            case 3: return .object(generator.document(depth: 1, maxFields: 6))
            case 4: return .string(String(stem.prefix(generator.int(0...stem.count))))
            default: return generator.value()
            }
        }
    }

    @Test(
        "a < b implies key(a) <= key(b), and key(a) < key(b) implies a < b",
        arguments: [(UInt64(51), 16), (52, 17), (53, 24), (54, 40), (55, 64)])
    func orderGuarantee(seed: UInt64, maxBytes: Int) {
        let values = Self.longValues(seed: seed, count: 140)
        for descending in [false, true] {
            let keys = values.map { Self.truncated($0, maxBytes: maxBytes, descending: descending).key }
            for i in values.indices {
                #expect(keys[i].count <= maxBytes)
                for j in values.indices {
                    let order = Value.compare(values[i], values[j]) * (descending ? -1 : 1)
                    let keyOrder = compareBytes(keys[i], keys[j])
                    if order < 0 { #expect(keyOrder <= 0, "\(values[i]) / \(values[j]) maxBytes \(maxBytes)") }
                    if keyOrder < 0 { #expect(order < 0, "\(values[i]) / \(values[j]) maxBytes \(maxBytes)") }
                }
            }
        }
    }

    @Test("an uncut value is written exactly as append writes it; a cut one is reported", arguments: [UInt64(61), 62])
    func detectable(seed: UInt64) throws {
        for value in Self.longValues(seed: seed, count: 300) {
            let (key, cut) = Self.truncated(value, maxBytes: 32)
            var full: [UInt8] = []
            KeyCodec.append(value, to: &full)
            // Too long is always cut; strings and bytes are cut only when too long. Arrays and
            // objects may be cut a little early: each element position reserves 12 bytes.
            if full.count > 32 { #expect(cut) }
            if case .string = value { #expect(cut == (full.count > 32)) }
            if case .bytes = value { #expect(cut == (full.count > 32)) }
            if !cut { #expect(key == full) }
            let components = try KeyCodec.decodeComponents(key)
            #expect(components.count == 1)
            #expect(components[0].isTruncated == cut)
            if !cut { #expect(components[0].value == value) }
        }
    }

    @Test("strings agreeing on their first maxBytes - 3 bytes share one truncated component")
    func prefixDetermined() throws {
        let maxBytes = 20
        let prefix = String(repeating: "ab\0", count: 6).prefix(maxBytes - 3)
        let keys = ["x", "yyyyyy", "\0\0\0", "é"].map { Self.truncated(.string(prefix + $0), maxBytes: maxBytes) }
        #expect(keys.allSatisfy { $0.cut })
        #expect(Set(keys.map(\.key)).count == 1)
        // Short enough when escaped: never cut.
        #expect(!Self.truncated(.string(String(repeating: "z", count: maxBytes - 3)), maxBytes: maxBytes).cut)
        // The decoded prefix is valid UTF-8 even if the cut split a character.
        let (key, _) = Self.truncated(.string(String(repeating: "😀", count: 10)), maxBytes: 16)
        let component = try KeyCodec.decodeComponents(key)[0]
        #expect(component.isTruncated && component.value == .string("😀😀😀"))
    }

    @Test("composite keys of long strings fit LMDB's limit and keep their order")
    func compositeFits() {
        let long = String(repeating: "x", count: 2000)
        var key: [UInt8] = []
        KeyCodec.appendTruncating(.string(long), to: &key, maxBytes: 250)
        KeyCodec.appendTruncating(.string(long + "y"), to: &key, descending: true, maxBytes: 250)
        #expect(key.count <= KeyCodec.maxKeyBytes)
    }
}
