import TestSupport
import DataStoreCore
import DataStoreCrashHelper
import DataStoreKit
import Foundation
import Testing

/// A power cut at any moment loses no acknowledged save (`.durable`), or only the saves LMDB's
/// relaxed commit leaves unsynced (`.relaxed`), and never leaves a partial change set, an index
/// disagreeing with its records, or a store that refuses writes.
///
/// The workload runs once per mode under the recorder (`Tests/PowerLoss/recorder.c`); crash images
/// are built from its log (``CrashImageBuilder``), opened by the crash helper (`inspect`) and
/// checked (``ImageChecker``, ``PowerLossVerifier``).
/// `DATASTORE_POWERLOSS_IMAGES` (default 300, two thirds durable) sets the number of images,
/// `DATASTORE_POWERLOSS_SEED` repeats a run, `POWERLOSS_RECORDER` names a built recorder.
@Suite("Power loss", .serialized)
struct PowerLossTests {
    static let images = environmentInt("DATASTORE_POWERLOSS_IMAGES", default: 300)
    static let seed = UInt64(environmentInt("DATASTORE_POWERLOSS_SEED", default: 20_261_201))
    /// Images written to disk and opened by one helper process at a time.
    static let batch = 25

    @Test(
        "durable: every change set acknowledged before the cut survives whole, the state is a prefix, check() is clean, writes work"
    )
    func durable() async throws {
        try await run(durability: .durable, images: Self.images - Self.images / 3, seed: Self.seed)
    }

    @Test(
        "relaxed: a prefix of the change sets survives whole (all acknowledged before the last data sync began), check() is clean, writes work"
    )
    func relaxed() async throws {
        try await run(durability: .relaxed, images: Self.images / 3, seed: Self.seed &+ 1)
    }

    func run(durability: Durability, images: Int, seed: UInt64) async throws {
        let directory = temporaryStorePath("powerloss")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        var keep = false
        defer { if !keep { try? FileManager.default.removeItem(atPath: directory) } }
        let log = try await PowerLossRecording.record(in: directory, durability: durability)
        let census = log.census
        let done = log.lines.first { $0.text.hasPrefix("DONE") }?.text ?? ""
        Self.expectRecorded(log, durability: durability, done: done)

        var random = SeededGenerator(seed: seed)
        var builder = CrashImageBuilder(log: log)
        let cuts = Self.cuts(log: log, count: images, using: &random)
        let checker = ImageChecker(log: log, durability: durability)
        var failures: [String] = []
        var stats = (acknowledged: 0, pending: 0, inPart: 0, lost: 0, losing: 0, mostLost: 0)
        // Images are checked in batches: each batch is written to disk, then opened by one helper.
        for start in stride(from: 0, to: cuts.count, by: Self.batch) {
            let numbers = start..<min(cuts.count, start + Self.batch)
            let jobs = numbers.map { number in
                let image = builder.image(cut: cuts[number], using: &random)
                stats.pending += image.pending
                stats.inPart += image.keptInPart
                return ImageChecker.Job(image: image, cut: cuts[number], path: "\(directory)/image-\(number)")
            }
            for (job, outcome) in zip(jobs, try await onOwnThread { try checker.check(jobs, scratch: directory) }) {
                stats.acknowledged += outcome.required
                stats.lost += outcome.lost
                stats.losing += outcome.lost > 0 ? 1 : 0
                stats.mostLost = max(stats.mostLost, outcome.lost)
                if outcome.problems.isEmpty {
                    try? FileManager.default.removeItem(atPath: job.path)
                } else {
                    keep = true
                    failures.append(
                        "seed \(seed), cut \(job.cut) of \(log.records.count) (image kept at \(job.path)): "
                            + outcome.problems.prefix(5).joined(separator: "; "))
                }
            }
        }
        let kinds = census.map { "\($0.key)=\($0.value)" }.sorted().joined(separator: " ")
        print(
            "power loss \(durability): \(cuts.count) images, \(Set(cuts).count) cut points of \(log.records.count) records, "
                + "\(stats.acknowledged) acknowledged change sets checked (\(log.lines.filter { $0.text.hasPrefix("ACK") }.count) "
                + "in the run), \(stats.losing) images lost acknowledged change sets (\(stats.lost) in all, at most "
                + "\(stats.mostLost) in one), \(stats.pending) unsynced writes (\(stats.inPart) torn), \(failures.count) failures; "
                + "\(done); records: \(kinds)")
        #expect(failures.isEmpty, "\(failures.count) of \(cuts.count) crash images failed: \(failures.prefix(8))")
    }

    /// The log shows what the images need: writes, syncs, the O_DSYNC meta writes of durable
    /// commits, and a workload that grew the map and wrote the data file ahead.
    static func expectRecorded(_ log: PowerLossLog, durability: Durability, done: String) {
        let census = log.census
        #expect(
            !log.lines.contains { $0.text.hasPrefix("FATAL") }, "\(log.lines.filter { $0.text.hasPrefix("FATAL") })")
        #expect(
            census[.write, default: 0] > 0 && census[.sync, default: 0] > 0,
            "the recorder saw no writes or syncs: \(census)")
        #expect(
            durability == .relaxed || census[.syncRange, default: 0] > 0,
            "no O_DSYNC meta write was recorded: \(census)")
        // Images are built from system-call writes alone; a write through a mapping would be invisible.
        #expect(census[.msync] == nil, "msync was called: the store wrote through its map, which images do not model")
        #expect(
            !done.contains("mapGrowths=0") && !done.contains("extensions=0") && !done.isEmpty,
            "the workload must grow the map and extend the data file: \(done)")
    }

    /// `count` cuts in ascending order: every cut until the store's first commit is durable, the end,
    /// then half anywhere in the log and half just before or just after a sync of the store's files
    /// returns (where the most writes are in flight).
    static func cuts(log: PowerLossLog, count: Int, using random: inout SeededGenerator) -> [Int] {
        let syncs = log.records.indices.filter { log.records[$0].kind == .sync || log.records[$0].kind == .syncRange }
        // Every cut while the store is created, up to its first durable commit.
        let created = min(syncs.dropFirst().first.map { $0 + 2 } ?? 0, log.records.count, 60)
        var cuts = [log.records.count] + Array(0..<created)
        while cuts.count < count {
            if cuts.count % 2 == 0 || syncs.isEmpty {
                cuts.append(Int.random(in: 0...log.records.count, using: &random))
            } else {
                cuts.append(syncs.randomElement(using: &random)! + Int.random(in: 0...1, using: &random))
            }
        }
        return cuts.prefix(max(count, 0)).sorted()
    }
}
