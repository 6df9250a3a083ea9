// The index build's external sort: entries come back in LMDB's key order (memcmp, then the
// shorter first), every one of them, whether they fit in one run or were spilled to files.
import Foundation
import TestSupport
import Testing
@testable import DataStoreKit

@Suite("Index entry sorter")
struct IndexEntrySorterTests {
    /// Keys built to stress the comparison: shared 8-byte prefixes, zero bytes, prefixes of each other.
    static func entries(_ count: Int) -> [(key: [UInt8], value: [UInt8])] {
        var rng = SeededGenerator(seed: 7)
        let stems: [[UInt8]] = [[], [0], [1, 2, 3, 4, 5, 6, 7, 8], [1, 2, 3, 4, 5, 6, 7, 8, 0], [0xFF, 0, 0xFF]]
        return (0..<count).map { number in
            var key = stems[Int.random(in: 0..<stems.count, using: &rng)]
            for _ in 0..<Int.random(in: 0...12, using: &rng) {
                key.append([0, 1, 0x7F, 0xFF].randomElement(using: &rng)!)
            }
            let value = (0..<Int.random(in: 0...9, using: &rng)).map { _ in UInt8(truncatingIfNeeded: number) }
            return (key, value)
        }
    }

    static func drained(_ sorter: IndexEntrySorter, batchBytes: Int) async throws -> [(key: [UInt8], value: [UInt8])] {
        var out: [(key: [UInt8], value: [UInt8])] = []
        try await sorter.drain(batchBytes: batchBytes) { run, range in
            run.forEach(in: range) { key, value in out.append((Array(key), Array(value))) }
        }
        return out
    }

    @Test("entries come back in key order, all of them", arguments: [1 << 30, 4_000, 700])
    func sortsAndMerges(memoryBound: Int) async throws {
        let directory = NSTemporaryDirectory() + "sorter-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let input = Self.entries(2_000)
        let sorter = IndexEntrySorter(memoryBound: memoryBound, directory: directory)
        for entry in input { try entry.value.withUnsafeBytes { try sorter.add(key: entry.key, value: $0) } }
        #expect(sorter.entryCount == input.count)
        #expect((sorter.spilledRuns > 0) == (memoryBound < 1 << 30))
        let output = try await Self.drained(sorter, batchBytes: 500)
        #expect(output.count == input.count)
        for (earlier, later) in zip(output, output.dropFirst()) {
            #expect(!later.key.lexicographicallyPrecedes(earlier.key), "\(earlier.key) came before \(later.key)")
        }
        func counted(_ entries: [(key: [UInt8], value: [UInt8])]) -> [[UInt8]: Int] {
            entries.reduce(into: [:]) { $0[$1.key + [0xEE] + $1.value, default: 0] += 1 }
        }
        #expect(counted(output) == counted(input))
        // The files were unlinked when made: nothing is left beside the store.
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory).isEmpty)
    }
}
