import TestSupport
import DataStoreCrashHelper
import Foundation
import Testing

/// The power-loss harness's own model, on logs written by hand: what a sync makes durable, what a
/// cut may keep, drop or tear, and that `lock.mdb` stays out of images.
@Suite("Crash images")
struct CrashImageBuilderTests {
    /// A log in the recorder's format (`Tests/PowerLoss/recorder.c`).
    struct SyntheticLog {
        var bytes: [UInt8] = []
        var count = 0

        @discardableResult
        mutating func append(
            _ kind: PowerLossLog.Kind, file: Int = 0, offset: Int = 0, length: Int = 0, covers: Int = 0,
            payload: [UInt8] = []
        ) -> Int {
            for word in [Int(kind.rawValue) | file << 32, offset, length, covers] {
                for k in 0..<8 { bytes.append(UInt8(truncatingIfNeeded: UInt64(word) >> (8 * k))) }
            }
            bytes += payload
            count += 1
            return count - 1
        }

        mutating func name(_ file: Int, _ path: String) {
            append(.name, file: file, length: path.utf8.count, payload: Array(path.utf8))
        }

        @discardableResult
        mutating func write(_ file: Int, at offset: Int, _ byte: UInt8, count: Int) -> Int {
            append(.write, file: file, offset: offset, length: count, payload: [UInt8](repeating: byte, count: count))
        }

        func log() throws -> PowerLossLog {
            let path = temporaryStorePath("synthetic-log")
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            defer { try? FileManager.default.removeItem(atPath: path) }
            return try PowerLossLog(path: path)
        }
    }

    /// The images of one cut under `seeds` different draws.
    static func images(_ log: PowerLossLog, cut: Int, seeds: Int = 300) -> [[UInt8]?] {
        (0..<seeds).map { seed in
            var random = SeededGenerator(seed: UInt64(seed))
            var builder = CrashImageBuilder(log: log)
            let image = builder.image(cut: cut, using: &random)
            #expect(image.files["store/lock.mdb"] == nil)
            return image.files["store/data.mdb"]
        }
    }

    static func sectors(_ file: [UInt8], page: Int) -> [UInt8?] {
        (0..<8).map { sector in
            let start = page * 4_096 + sector * 512
            guard start + 512 <= file.count else { return nil }
            let bytes = Set(file[start..<(start + 512)])
            return bytes.count == 1 ? bytes.first : 0xff
        }
    }

    @Test(
        "a synced write is always there; a later unsynced one is kept, dropped, or torn at sectors, never split inside one"
    )
    func syncedAndUnsynced() throws {
        var synthetic = SyntheticLog()
        synthetic.name(0, "store/data.mdb")
        synthetic.name(1, "store/lock.mdb")
        synthetic.write(0, at: 0, 0x11, count: 4_096)
        synthetic.write(1, at: 0, 0x77, count: 4_096)
        synthetic.append(.sync, file: 0, covers: synthetic.count)
        synthetic.write(0, at: 0, 0x22, count: 8_192)
        let log = try synthetic.log()
        var torn = 0, old = 0, new = 0
        for file in Self.images(log, cut: log.records.count) {
            let file = try #require(file)
            #expect(file.count == 4_096 || file.count == 8_192)
            let first = Self.sectors(file, page: 0)
            #expect(first.allSatisfy { $0 == 0x11 || $0 == 0x22 }, "page 0 sectors \(first)")
            #expect(Self.sectors(file, page: 1).allSatisfy { $0 == nil || $0 == 0x22 || $0 == 0 })
            if Set(first).count > 1 { torn += 1 } else if first[0] == 0x11 { old += 1 } else { new += 1 }
        }
        #expect(torn > 0 && old > 0 && new > 0, "torn \(torn), old \(old), new \(new)")
    }

    @Test(
        "a sync covers the writes logged before it began, not one that raced with it; an O_DSYNC write is durable alone"
    )
    func whatASyncCovers() throws {
        var synthetic = SyntheticLog()
        synthetic.name(0, "store/data.mdb")
        synthetic.write(0, at: 0, 0x11, count: 4_096)
        let began = synthetic.count
        synthetic.write(0, at: 4_096, 0x22, count: 4_096)
        synthetic.append(.sync, file: 0, covers: began)
        let direct = synthetic.write(0, at: 8_192, 0x33, count: 4_096)
        let beforeReturn = synthetic.count
        synthetic.append(.syncRange, file: 0, offset: 8_192, length: 4_096, covers: direct)
        synthetic.write(0, at: 12_288, 0x44, count: 4_096)
        let log = try synthetic.log()

        let atEnd = Self.images(log, cut: log.records.count).map { $0 ?? [] }
        #expect(atEnd.allSatisfy { Self.sectors($0, page: 0).allSatisfy { $0 == 0x11 } })
        #expect(atEnd.allSatisfy { Self.sectors($0, page: 2).allSatisfy { $0 == 0x33 } })
        #expect(
            atEnd.contains { Self.sectors($0, page: 1).contains { $0 != 0x22 } }, "the racing write was always kept")
        #expect(atEnd.contains { Self.sectors($0, page: 3).contains { $0 != 0x44 } })

        let inFlight = Self.images(log, cut: beforeReturn).map { $0 ?? [] }
        #expect(
            inFlight.contains { Self.sectors($0, page: 2).contains { $0 != 0x33 } },
            "an O_DSYNC write was durable before it returned")
        let beforeSync = Self.images(log, cut: began).map { $0 ?? [] }
        #expect(
            beforeSync.contains { Self.sectors($0, page: 0).contains { $0 != 0x11 } },
            "a write was durable before any sync")
    }
}
