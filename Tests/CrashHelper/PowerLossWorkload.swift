import DataStoreCore
public import DataStoreKit
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// One ledger entry per change set of the power-loss workload: the change set's own record in a
/// second collection, with a unique, a unique compound and a multi-value index.
public struct LedgerEntry: Codable, Sendable, Equatable {
    /// The change set's tag (the tag of its ``CrashItem`` group).
    public var id: String
    public var worker: Int
    /// The change set's number among its worker's.
    public var n: Int
    /// How many items the change set added.
    public var count: Int
    /// The tag of the group the change set removed, if any.
    public var removes: String?
    /// Unique per change set.
    public var email: String
    public var labels: [String]

    public init(tag: String, worker: Int, n: Int, count: Int, removes: String?) {
        id = tag
        self.worker = worker
        self.n = n
        self.count = count
        self.removes = removes
        email = "\(tag)@power.loss"
        labels = ["w\(worker)", "n\(n % 5)", "c\(count)"]
    }
}

/// One record per worker in a third collection, replaced by each of its change sets, so that
/// updates (and the index entries they move) are part of every change set.
public struct WorkerHead: Codable, Sendable, Equatable {
    /// `w<worker>`.
    public var id: String
    public var worker: Int
    /// The number of the worker's last change set.
    public var last: Int
    /// The tag of that change set; unique, so each update moves a unique index entry.
    public var token: String
    /// The items the worker's change sets have added and not removed.
    public var live: Int

    public init(worker: Int, last: Int, token: String, live: Int) {
        id = "w\(worker)"
        self.worker = worker
        self.last = last
        self.token = token
        self.live = live
    }
}

/// The collections of the power-loss workload and the lines it prints.
public enum PowerLossWorkload {
    /// A small first map, so that the writer must grow it while the workload runs.
    public static let initialMapSize = 256 << 10

    /// The store options of a run in `durability`.
    public static func options(durability: Durability) -> DataStore.Options {
        DataStore.Options(mapSize: initialMapSize, durability: durability)
    }

    public static let ledgerIndexes: [IndexDefinition] = [
        IndexDefinition("email", unique: true),
        IndexDefinition("worker_n", fields: ["worker", .descending("n")], unique: true),
        IndexDefinition("labels", multiValue: true)
    ]

    public static let headIndexes: [IndexDefinition] = [
        IndexDefinition("token", unique: true),
        IndexDefinition("last")
    ]

    /// The three collections: ``CrashWorkload``'s items, the ledger and the worker heads.
    public static func collections(in store: DataStore) async throws
        -> (items: StoreCollection<CrashItem>, ledger: StoreCollection<LedgerEntry>, heads: StoreCollection<WorkerHead>)
    {
        let items = try await CrashWorkload.collection(in: store)
        let ledger = try await store.collection(LedgerEntry.self, name: "ledger", idField: "id", indexes: ledgerIndexes)
        let heads = try await store.collection(WorkerHead.self, name: "heads", idField: "id", indexes: headIndexes)
        return (items, ledger, heads)
    }

    /// `<prefix><worker>-<n>`.
    public static func tag(prefix: String, worker: Int, n: Int) -> String { "\(prefix)\(worker)-\(n)" }

    /// The line printed just before a change set is handed to the writer.
    public static func beginLine(tag: String) -> String { "BEGIN \(tag)" }

    /// Parses a `BEGIN <tag>` line.
    public static func begunTag(line: some StringProtocol) -> String? {
        let words = line.split(separator: " ")
        return words.count == 2 && words[0] == "BEGIN" ? String(words[1]) : nil
    }
}

extension CrashHelper {
    /// `powerloss <dir> [--workers 4] [--count 30] [--durability durable|relaxed]`: each worker saves
    /// `count` change sets, each adding a group of items, its ledger entry and the worker's head
    /// (every third also removing the worker's previous group), printing `BEGIN <tag>` before and
    /// `ACK <tag> <count> <removed or ->` after each save; then `DONE mapGrowths=… extensions=…`.
    static func powerLoss(path: String, options: Options) async throws {
        let durability: Durability = options.string("--durability") == "relaxed" ? .relaxed : .durable
        let store = try DataStore.open(path: path, options: PowerLossWorkload.options(durability: durability))
        let (items, ledger, heads) = try await PowerLossWorkload.collections(in: store)
        emit("READY")
        let workers = options.int("--workers") ?? 4
        let count = options.int("--count") ?? 30
        await withTaskGroup(of: Void.self) { group in
            for worker in 0..<workers {
                group.addTask {
                    var previous: (tag: String, count: Int)?
                    var live = 0
                    for n in 0..<count {
                        let tag = PowerLossWorkload.tag(prefix: "", worker: worker, n: n)
                        let size = CrashWorkload.groupSize(n)
                        let removes = CrashWorkload.removesPrevious(n) ? previous : nil
                        live += size - (removes?.count ?? 0)
                        // A context's snapshot is taken away when the writer grows the map (the
                        // map starts small): staging then fails with snapshotExpired before anything
                        // is saved, and the unit of work is done again, as an application would.
                        for attempt in 1... {
                            do {
                                let context = store.newContext()
                                if let removes {
                                    for index in 0..<removes.count {
                                        try context.remove(id: .string("\(removes.tag).\(index)"), from: items)
                                    }
                                }
                                for index in 0..<size {
                                    try context.add(
                                        CrashItem(tag: tag, of: size, index: index, removes: removes?.tag), to: items)
                                }
                                try context.add(
                                    LedgerEntry(tag: tag, worker: worker, n: n, count: size, removes: removes?.tag),
                                    to: ledger)
                                let head = WorkerHead(worker: worker, last: n, token: tag, live: live)
                                try context.put(id: .string(head.id), object: head, in: heads)
                                emit(PowerLossWorkload.beginLine(tag: tag))
                                try await context.save()
                                break
                            } catch let error as DataStoreError where error.code == .snapshotExpired && attempt < 10 {
                                continue
                            } catch {
                                fail("worker \(worker) save \(n) failed: \(error)")
                            }
                        }
                        emit(CrashWorkload.ackLine(tag: tag, count: size, removes: removes?.tag))
                        previous = (tag, size)
                    }
                }
            }
        }
        let metrics = store.writerMetrics
        emit(
            "DONE mapGrowths=\(metrics.mapGrowths) extensions=\(metrics.dataFileExtensions) batches=\(metrics.batches)")
        store.close()
    }
}
