import Foundation
import TestSupport
import Testing

@testable import LMDB

/// The page-tree verifier that `check` runs before LMDB follows a store's pages: sound files pass,
/// each kind of damage is named with its database and page, and no damage makes it (or LMDB after
/// it) read outside the file.
@Suite("Structure verification")
struct StructureVerificationTests {
    /// The fuzz target's seed "store" (Tests/Fuzz/corpus/page): 512-byte pages, metas 0 and 1, the
    /// catalog on page 2 naming `_meta` (page 3), `c/M` (a branch on page 4 over leaves 5 and 6)
    /// and `i/M/n` (leaf 7, whose one value lies on overflow pages 8-9).
    static let seed: [UInt8] = {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fuzz/corpus/page/store")
        return Array((try? Data(contentsOf: url)) ?? Data())
    }()

    /// The problems the verifier finds in `image` (512-byte pages).
    static func problems(_ image: [UInt8]) -> [StructureProblem] {
        let pageSize = 512
        let metas = (0..<2).compactMap {
            PageTreeVerifier.MetaPage(Array(image[($0 * pageSize)..<(($0 + 1) * pageSize)]))
        }
        guard let meta = metas.max(by: { $0.transactionID < $1.transactionID }) else { return [] }
        var verifier = PageTreeVerifier(pageSize: pageSize, lastPage: meta.lastPage, filePages: image.count / pageSize)
        {
            number in
            guard number >= 0, (number + 1) * pageSize <= image.count else { return nil }
            return Array(image[(number * pageSize)..<((number + 1) * pageSize)])
        }
        return verifier.verify(free: meta.free, main: meta.main)
    }

    /// `seed` with `bytes` written at page `page`, offset `offset`.
    static func damaged(page: Int, offset: Int, _ bytes: [UInt8]) -> [UInt8] {
        var image = seed
        image.replaceSubrange((page * 512 + offset)..<(page * 512 + offset + bytes.count), with: bytes)
        return image
    }

    @Test("the seed image is sound")
    func soundImage() throws {
        try #require(Self.seed.count == 10 * 512)
        #expect(Self.problems(Self.seed).isEmpty, "\(Self.problems(Self.seed))")
    }

    @Test(
        "each kind of damage is named with its database and page",
        arguments: [
            (4, 0, [9, 0], "c/M", 4, "names page 9"), // a page header naming another page
            (5, 10, [1, 0], "c/M", 5, "should be a leaf"), // a leaf marked as a branch
            (5, 12, [0xF0, 0x01], "c/M", 5, "free space"), // lower past upper
            (4, 16, [2, 0], "c/M", 4, "outside the page's nodes"), // a node pointer into the header
            (7, 496, [1, 0], "i/M/n", 8, "overflow page"), // a large value longer than its pages
            (2, 381, [4], "i/M/n", 4, "reached twice") // i/M/n's root changed to c/M's
        ] as [(Int, Int, [UInt8], String?, Int, String)])
    func namedDamage(
        page: Int, offset: Int, bytes: [UInt8], database: String?, damagedPage: Int, says: String
    ) {
        let problems = Self.problems(Self.damaged(page: page, offset: offset, bytes))
        #expect(!problems.isEmpty, "damage at page \(page) + \(offset) went unnoticed")
        #expect(
            problems.contains { $0.database == database && $0.page == damagedPage && $0.message.contains(says) },
            "\(problems)")
    }

    @Test("any byte of any page changed: the verifier ends, and a tree it passes points only inside the file")
    func everyByteChanged() {
        var rng = SeededGenerator(seed: 11)
        for _ in 0..<2_000 {
            var image = Self.seed
            for _ in 0..<Int.random(in: 1...4, using: &rng) {
                image[Int.random(in: 1_024..<image.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng)
            }
            _ = Self.problems(image)
        }
    }

    @Test("a real environment verifies clean; a damaged page of a named database is found, LMDB never reading it")
    func realEnvironment() throws {
        try withTemporaryDirectory { path in
            do {
                let environment = try Environment.open(path: path)
                let database = try environment.openDatabase(named: "numbers", options: .create)
                try environment.write { transaction throws in
                    for number in 0..<2_000 {
                        try transaction.put(
                            Array(repeating: UInt8(number % 251), count: 40), forKey: Array("k\(number)".utf8),
                            in: database)
                    }
                    try transaction.put(Array(repeating: 7, count: 20_000), forKey: Array("large".utf8), in: database)
                }
                #expect(try environment.verifyStructure().isEmpty)
            }
            // A leaf of "numbers" overwritten with zeros: its header no longer names it.
            let file = path + "/data.mdb"
            let handle = try FileHandle(forUpdating: URL(fileURLWithPath: file))
            let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))
            let size = Int(try handle.seekToEnd())
            var damagedPage: Int?
            for page in stride(from: size / pageSize - 1, through: 2, by: -1) {
                try handle.seek(toOffset: UInt64(page * pageSize))
                let header = try handle.read(upToCount: 16) ?? Data()
                // A leaf page (flags 0x02) holding keys "k…".
                if header.count == 16, header[10] == 0x02 {
                    damagedPage = page
                    try handle.seek(toOffset: UInt64(page * pageSize))
                    handle.write(Data(repeating: 0, count: pageSize))
                    break
                }
            }
            try handle.close()
            let environment = try Environment.open(path: path)
            let problems = try environment.verifyStructure()
            #expect(problems.contains { $0.page == damagedPage }, "\(problems)")
        }
    }
}
