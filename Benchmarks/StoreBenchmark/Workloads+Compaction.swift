// Compaction: each backend repacks its pages, then the full scan runs again. After the reads,
// the index build and the updates, so none of them meets the repacked pages; before the group
// commit, whose saves would make the backends' messages differ.
import BenchmarkSupport
import DataStoreCore
import DataStoreKit
import Foundation
import Synchronization

extension BenchmarkRun {
    /// Times each backend's repacking (DataStoreKit's `compact(collection:)`, raw LMDB's
    /// databases rewritten by hand in key order, SQLite's `VACUUM`), records the sizes after, and
    /// reads the full scan again.
    func compactedScan() async throws {
        progress("compacting each backend (DataStoreKit compact, raw LMDB rewrite, SQLite VACUUM)…")
        let growthsBefore = store.metrics.mapGrowths
        var seconds: [Double] = []
        var heapGrowth: [Int] = []
        for repack in [{ try await self.store.compact() }, { try self.raw.compact() }, { try self.sqlite.vacuum() }] {
            let sampler = HeapSampler()
            let start = Clock.wall()
            try await repack()
            seconds.append(Double(Clock.wall() - start) / 1e9)
            heapGrowth.append(sampler.stop())
        }
        let mebibytes = heapGrowth.map { fixed(Double($0) / 1_048_576, 1) }
        report.notes.append(
            "compaction of messages (records and indexes): DataStoreKit \(fixed(seconds[0], 2)) s, "
                + "raw LMDB \(fixed(seconds[1], 2)) s, SQLite VACUUM \(fixed(seconds[2], 2)) s; peak heap growth "
                + "(RssAnon) \(mebibytes.joined(separator: " / ")) MiB; DataStoreKit's map grew "
                + "\(store.metrics.mapGrowths - growthsBefore) times meanwhile")
        let problems = try store.messages.check()
        let documents = try [store.count(), sqlite.count()] + raw.counts()
        report.checks.append(
            "after compaction, documents (DataStoreKit, SQLite) and raw LMDB's records and index entries "
                + "\(documents.map(String.init).joined(separator: ", ")): "
                + (Set(documents).count == 1 ? "ok" : "MISMATCH") + "; DataStoreKit integrity check: "
                + (problems.isEmpty ? "ok" : "\(problems.count) PROBLEMS, first: \(problems[0])"))
        try recordSizes(suffix: "after compaction")
        let type = dataset.scanType
        try read(
            "full scan, type == \"video\" → objects, after compaction", unit: "scans/s", inputs: 1, perSample: 1,
            goal: nil, store: { try store.messages(ofType: type, codable: $1) },
            raw: { _ in try raw.messages(ofType: type) }, sqlite: { _ in try sqlite.messages(ofType: type) })
    }
}

/// Samples the process's anonymous memory (`RssAnon` in /proc/self/status: the heap, not the
/// mapped files) every millisecond on a thread of its own, from creation until ``stop()``.
final class HeapSampler: Sendable {
    private let running = Atomic<Bool>(true)
    private let peak = Mutex(0)
    private let done = DispatchSemaphore(value: 0)
    private let start = processStatusBytes("RssAnon")

    init() {
        Thread.detachNewThread { [self] in
            while running.load(ordering: .relaxed) {
                let now = processStatusBytes("RssAnon")
                peak.withLock { $0 = max($0, now) }
                usleep(1_000)
            }
            done.signal()
        }
    }

    /// Stops sampling; returns the largest growth over the value at creation, in bytes.
    func stop() -> Int {
        running.store(false, ordering: .relaxed)
        done.wait()
        return max(0, peak.withLock { $0 } - start)
    }
}
