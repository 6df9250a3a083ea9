import DataStoreCore
import DataStoreCrashHelper
import DataStoreKit
import Foundation

/// Opens crash images as stores and checks them against what the workload printed before each cut.
struct ImageChecker {
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

    /// Writes `image` to the directory `path`, opens it, and returns the problems found and the
    /// number of acknowledged change sets that had to be present.
    func check(_ image: CrashImage, cut: Int, at path: String) async throws -> ([String], Int) {
        // Recorded paths are relative to the recording's directory, which held the store as `store`.
        try FileManager.default.createDirectory(atPath: "\(path)/store", withIntermediateDirectories: true)
        for (name, bytes) in image.files {
            guard FileManager.default.createFile(atPath: "\(path)/\(name)", contents: Data(bytes)) else {
                throw LogError("cannot write the image file \(path)/\(name)")
            }
        }
        let required = required(cut: cut)
        let printed = PowerLossVerifier.Printed(
            acknowledged: acknowledged.filter { $0.record < cut },
            begun: Dictionary(begun.filter { $0.record < cut }.map { ($0.tag, $0.record) }, uniquingKeysWith: min))
        let store: DataStore
        do {
            store = try DataStore.open(path: "\(path)/store", options: DataStore.Options(durability: durability))
        } catch {
            return (["open failed (\(required.count) acknowledged change sets before the cut): \(error)"], required.count)
        }
        defer { store.close() }
        var problems: [String] = []
        do {
            let (items, ledger, heads) = try await PowerLossWorkload.collections(in: store)
            problems += PowerLossVerifier.problems(items: try await items.all(), ledger: try await ledger.all(),
                                                   heads: try await heads.all(), printed: printed, required: required)
            problems += try store.check().map { "check(): \($0)" }
            problems += try await acceptsWrite(store: store, items: items, ledger: ledger, heads: heads)
        } catch {
            problems.append("reading or writing the reopened store failed: \(error)")
        }
        return (problems, required.count)
    }

    /// Saves one more change set across the three collections and reads it back.
    private func acceptsWrite(store: DataStore, items: StoreCollection<CrashItem>, ledger: StoreCollection<LedgerEntry>,
                              heads: StoreCollection<WorkerHead>) async throws -> [String] {
        let tag = "after-power-loss"
        let context = store.newContext()
        for index in 0..<3 { try context.add(CrashItem(tag: tag, of: 3, index: index, removes: nil), to: items) }
        try context.add(LedgerEntry(tag: tag, worker: 1_000, n: 0, count: 3, removes: nil), to: ledger)
        let head = WorkerHead(worker: 1_000, last: 0, token: tag, live: 3)
        try context.put(id: .string(head.id), object: head, in: heads)
        try await context.save()
        let stored = try await items.query(params: ["tag": .string(tag)], options: nil)
        guard stored.count == 3, try await heads.get(id: .string(head.id)) == head else {
            return ["the change set saved after reopening reads back as \(stored.count) of 3 items"]
        }
        return []
    }
}
