import DataStoreCore
import DataStoreKit
import Foundation

extension CrashHelper {
    /// `inspect <list file> [--durability durable|relaxed]`: opens each store directory named in the
    /// list file (one per line) in turn and prints what it holds, for the power-loss tests to check.
    /// A damaged store may make LMDB abort the process; the tests run this in a child so that an
    /// abort is reported against the image that caused it (`IMAGE` names the image being opened).
    ///
    /// Per image: `IMAGE <dir>`, then either `OPENFAIL <error>` or the documents (`ITEM <json>`,
    /// `LEDGER <json>`, `HEAD <json>`), `PROBLEM <text>` per `check()` problem, `PROBE ok` or
    /// `PROBE <error>` for a new change set saved and read back, and `END <dir>`.
    static func inspect(listPath: String, options: Options) async throws {
        let durability: Durability = options.string("--durability") == "relaxed" ? .relaxed : .durable
        let list = try String(contentsOfFile: listPath, encoding: .utf8)
        for path in list.split(separator: "\n").map(String.init) {
            emit("IMAGE \(path)")
            await inspectImage(path: path, durability: durability)
            emit("END \(path)")
        }
        emit("DONE")
    }

    private static func inspectImage(path: String, durability: Durability) async {
        let store: DataStore
        do {
            store = try DataStore.open(path: path, options: DataStore.Options(durability: durability))
        } catch {
            emit("OPENFAIL \(oneLine(error))")
            return
        }
        defer { store.close() }
        do {
            let (items, ledger, heads) = try await PowerLossWorkload.collections(in: store)
            let encoder = JSONEncoder()
            for item in try await items.all() {
                emit("ITEM " + String(decoding: try encoder.encode(item), as: UTF8.self))
            }
            for entry in try await ledger.all() {
                emit("LEDGER " + String(decoding: try encoder.encode(entry), as: UTF8.self))
            }
            for head in try await heads.all() {
                emit("HEAD " + String(decoding: try encoder.encode(head), as: UTF8.self))
            }
            for problem in try store.check() { emit("PROBLEM \(oneLine(problem))") }
            emit("PROBE " + (try await probe(items: items, ledger: ledger, heads: heads, store: store)))
        } catch {
            emit("PROBLEM reading or writing the reopened store failed: \(oneLine(error))")
        }
    }

    /// Saves one more change set across the three collections and reads it back: `ok`, or what differed.
    private static func probe(
        items: StoreCollection<CrashItem>, ledger: StoreCollection<LedgerEntry>,
        heads: StoreCollection<WorkerHead>, store: DataStore
    ) async throws -> String {
        let tag = "after-power-loss"
        let context = store.newContext()
        for index in 0..<3 { try context.add(CrashItem(tag: tag, of: 3, index: index, removes: nil), to: items) }
        try context.add(LedgerEntry(tag: tag, worker: 1_000, n: 0, count: 3, removes: nil), to: ledger)
        let head = WorkerHead(worker: 1_000, last: 0, token: tag, live: 3)
        try context.put(id: .string(head.id), object: head, in: heads)
        try await context.save()
        let stored = try await items.query(params: ["tag": .string(tag)], options: nil)
        guard stored.count == 3, try await heads.get(id: .string(head.id)) == head,
            try await ledger.get(id: .string(tag)).count == 3
        else {
            return "the change set saved after reopening reads back as \(stored.count) of 3 items"
        }
        return "ok"
    }

    private static func oneLine(_ value: Any) -> String {
        "\(value)".replacingOccurrences(of: "\n", with: " ")
    }
}
