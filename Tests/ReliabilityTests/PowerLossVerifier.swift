import DataStoreCrashHelper

/// What a store reopened from a crash image must hold, given what the workload printed before the
/// cut: the three collections agree with one another, the state is a prefix of the change sets
/// (none missing that was acknowledged before a present one began), and every change set in
/// `required` is there.
enum PowerLossVerifier {
    /// What the workload printed before the cut.
    struct Printed {
        /// Acknowledged change sets, with the record index of their `ACK` line.
        var acknowledged: [(record: Int, acknowledgement: Acknowledgement)]
        /// The record index of each change set's `BEGIN` line.
        var begun: [String: Int]
    }

    static func problems(
        items: [CrashItem], ledger: [LedgerEntry], heads: [WorkerHead], printed: Printed,
        required: [Acknowledgement]
    ) -> [String] {
        var problems = GroupVerifier.problems(stored: items, acknowledged: required)
        let entries = Dictionary(ledger.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        for acknowledgement in required where entries[acknowledgement.tag] == nil {
            problems.append("acknowledged change set \(acknowledgement.tag) has no ledger entry")
        }
        problems += agreement(items: items, entries: entries)
        problems += workerPrefixes(ledger: ledger, heads: heads)
        // A prefix: a change set present means every one acknowledged before it began is present.
        let latestBegin = ledger.compactMap { printed.begun[$0.id] }.max() ?? -1
        for entry in ledger where printed.begun[entry.id] == nil {
            problems.append("change set \(entry.id) is present but never began before the cut")
        }
        for (record, acknowledgement) in printed.acknowledged
        where record < latestBegin && entries[acknowledgement.tag] == nil {
            problems.append(
                "change set \(acknowledgement.tag) (acknowledged at record \(record)) is missing, but a "
                    + "change set that began after it (record \(latestBegin)) is present")
        }
        return problems.sorted()
    }

    /// Ledger entries and item groups describe the same change sets.
    private static func agreement(items: [CrashItem], entries: [String: LedgerEntry]) -> [String] {
        var problems: [String] = []
        let groups = Dictionary(grouping: items, by: \.tag)
        let removed = Set(entries.values.compactMap(\.removes))
        for tag in groups.keys where entries[tag] == nil {
            problems.append("item group \(tag) has no ledger entry")
        }
        for entry in entries.values {
            let present = groups[entry.id]?.count ?? 0
            if removed.contains(entry.id) {
                if present != 0 { problems.append("group \(entry.id) was removed but \(present) item(s) remain") }
            } else if present != entry.count {
                problems.append("ledger entry \(entry.id) has \(present) of its \(entry.count) items")
            }
        }
        return problems
    }

    /// Each worker's ledger entries are its change sets `0..<k`, and its head describes change set `k - 1`.
    private static func workerPrefixes(ledger: [LedgerEntry], heads: [WorkerHead]) -> [String] {
        var problems: [String] = []
        let byWorker = Dictionary(grouping: ledger, by: \.worker)
        let headByWorker = Dictionary(heads.map { ($0.worker, $0) }, uniquingKeysWith: { first, _ in first })
        for worker in Set(byWorker.keys).union(headByWorker.keys) {
            let entries = (byWorker[worker] ?? []).sorted { $0.n < $1.n }
            if entries.map(\.n) != Array(0..<entries.count) {
                problems.append("worker \(worker) has change sets \(entries.map(\.n)), not a prefix")
            }
            let live = entries.reduce(0) { total, entry in
                total + entry.count
                    - (entry.removes.map { removed in entries.first { $0.id == removed }?.count ?? 0 } ?? 0)
            }
            guard let last = entries.last else {
                problems.append("worker \(worker) has a head but no change set")
                continue
            }
            let expected = WorkerHead(worker: worker, last: last.n, token: last.id, live: live)
            if headByWorker[worker] != expected {
                problems.append(
                    "worker \(worker)'s head is \(String(describing: headByWorker[worker])), not \(expected)")
            }
        }
        return problems
    }
}
