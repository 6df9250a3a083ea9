import DataStoreCore
import DataStoreCrashHelper
import DataStoreKit
import Foundation

/// Opens crash images as stores and checks them against what the workload printed before each cut.
///
/// The images are opened by the crash helper (`inspect`), a batch per process: LMDB aborts the
/// process on some damaged files, and a child's abort is a finding against one image instead of
/// the end of the test run.
struct ImageChecker {
    /// One image to check: its files, its cut, and the directory it is written to.
    struct Job {
        var image: CrashImage
        var cut: Int
        var path: String
    }

    /// What checking one image found, and how many acknowledged change sets had to be present.
    struct Outcome {
        var problems: [String]
        var required: Int
        /// Change sets acknowledged before the cut that the image does not hold (only `.relaxed` may
        /// lose any).
        var lost = 0
    }

    let log: PowerLossLog
    let durability: Durability
    private let acknowledged: [(record: Int, acknowledgement: Acknowledgement)]
    private let begun: [(record: Int, tag: String)]
    /// The record indexes of the syncs of `data.mdb`, with the first record each does not cover.
    private let dataSyncs: [(record: Int, covers: Int)]

    init(log: PowerLossLog, durability: Durability) {
        self.log = log
        self.durability = durability
        acknowledged = log.lines.compactMap { line in Acknowledgement(line: line.text).map { (line.record, $0) } }
        begun = log.lines.compactMap { line in PowerLossWorkload.begunTag(line: line.text).map { (line.record, $0) } }
        let data = log.fileNames.first { $0.value == "store/data.mdb" }?.key
        dataSyncs = log.records.indices.filter { log.records[$0].kind == .sync && log.records[$0].file == data }
            .map { ($0, log.records[$0].covers) }
    }

    /// The change sets that must survive a cut after records `0..<cut`: in `.durable`, all
    /// acknowledged before the cut; in `.relaxed` (`MDB_NOMETASYNC`: a commit's meta page is written
    /// unsynced and made durable by the next commit's data sync), all acknowledged before the last
    /// completed sync of `data.mdb` began.
    func required(cut: Int) -> [Acknowledgement] {
        let bound = durability == .relaxed ? (dataSyncs.last { $0.record < cut }?.covers ?? 0) : cut
        return acknowledged.filter { $0.record < bound }.map(\.acknowledgement)
    }

    /// Writes each job's image to its directory, has the crash helper open them, and checks what
    /// it read. A helper that dies fails the image it was on; the next helper goes on after it.
    func check(_ jobs: [Job], scratch: String) throws -> [Outcome] {
        for job in jobs { try write(job) }
        var outcomes: [Outcome] = []
        while outcomes.count < jobs.count {
            let rest = jobs[outcomes.count...]
            let run = try InspectRun(paths: rest.map { "\($0.path)/store" }, durability: durability, scratch: scratch)
            for (job, image) in zip(rest, run.images) { outcomes.append(outcome(job, image)) }
            if outcomes.count < jobs.count, run.images.count < rest.count {
                let job = rest[rest.startIndex + run.images.count]
                outcomes.append(
                    Outcome(
                        problems: [
                            "the store process died opening or reading the image (\(run.ending)): "
                                + run.errors.suffix(400)
                        ], required: required(cut: job.cut).count))
            }
        }
        return outcomes
    }

    private func write(_ job: Job) throws {
        // Recorded paths are relative to the recording's directory, which held the store as `store`.
        try FileManager.default.createDirectory(atPath: "\(job.path)/store", withIntermediateDirectories: true)
        for (name, bytes) in job.image.files {
            guard FileManager.default.createFile(atPath: "\(job.path)/\(name)", contents: Data(bytes)) else {
                throw LogError("cannot write the image file \(job.path)/\(name)")
            }
        }
    }

    private func outcome(_ job: Job, _ image: InspectRun.Image) -> Outcome {
        let required = required(cut: job.cut)
        var problems = image.problems
        if let failure = image.openFailure {
            problems.append("open failed (\(required.count) acknowledged change sets before the cut): \(failure)")
        } else {
            let printed = PowerLossVerifier.Printed(
                acknowledged: acknowledged.filter { $0.record < job.cut },
                begun: Dictionary(
                    begun.filter { $0.record < job.cut }.map { ($0.tag, $0.record) }, uniquingKeysWith: min))
            problems += PowerLossVerifier.problems(
                items: image.items, ledger: image.ledger, heads: image.heads,
                printed: printed, required: required)
            if image.probe != "ok" { problems.append("a new write after reopening: \(image.probe ?? "no answer")") }
        }
        let present = Set(image.ledger.map(\.id))
        let lost = acknowledged.filter { $0.record < job.cut && !present.contains($0.acknowledgement.tag) }.count
        return Outcome(problems: problems, required: required.count, lost: image.openFailure == nil ? lost : 0)
    }
}
