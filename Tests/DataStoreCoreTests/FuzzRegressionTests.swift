import DataStoreCore
import Foundation
import Testing

/// The fuzz targets' invariants (Tests/Fuzz), replayed over their committed seed corpora on every
/// test run, plus one test per crash the fuzzers ever found (none so far: record, key and query
/// each ran clean; see docs/reliability.md).
@Suite("Fuzz regressions")
struct FuzzRegressionTests {
    static let corpus = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fuzz/corpus")

    static func seeds(_ target: String) -> [[UInt8]] {
        let directory = corpus.appendingPathComponent(target)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.sorted().compactMap { try? Array(Data(contentsOf: directory.appendingPathComponent($0))) }
    }

    @Test("record seeds: accepted records re-encode to their bytes and field() agrees with decode()")
    func recordSeeds() throws {
        let seeds = Self.seeds("record")
        #expect(seeds.count >= 10)
        for bytes in seeds {
            guard let document = try? RecordCodec.decode(bytes) else { continue }
            #expect(try RecordCodec.encode(document) == bytes)
            for (name, value) in document { #expect(try RecordCodec.field(name, in: bytes) == value) }
        }
    }

    @Test("key seeds: accepted uncut keys re-encode to their bytes with their directions")
    func keySeeds() throws {
        let seeds = Self.seeds("key")
        #expect(seeds.count >= 10)
        for bytes in seeds {
            let components = try KeyCodec.decodeComponents(bytes)
            #expect(try KeyCodec.decode(bytes, descending: components.map(\.isDescending)) == components.map(\.value))
            guard !components.contains(where: \.isTruncated) else { continue }
            var again: [UInt8] = []
            for component in components {
                KeyCodec.append(component.value, to: &again, descending: component.isDescending)
            }
            #expect(again == bytes)
        }
    }

    @Test("every single-byte change of every record seed throws or decodes canonically")
    func recordMutations() throws {
        for seed in Self.seeds("record") {
            for index in seed.indices {
                for replacement: UInt8 in [0x00, 0x01, 0x7F, 0x80, 0xFF, seed[index] &+ 1] {
                    var bytes = seed
                    bytes[index] = replacement
                    if let document = try? RecordCodec.decode(bytes) {
                        #expect(try RecordCodec.encode(document) == bytes)
                    }
                }
            }
        }
    }
}
