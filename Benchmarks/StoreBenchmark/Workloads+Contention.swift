// Units of work on one hot record: "add a message and update the sender's record" from 100 and
// 1 000 concurrent callers, every caller the same sender, against the same count where each caller
// has a sender of its own — through `write { }` (run in the writer: no conflict possible) and
// through contexts that retry on `.conflict` (`perform`), on any store of the contract.
import DataStoreCore
import DataStoreEngine
import DataStoreKit
import Foundation

/// One contention configuration on one backend.
struct ContentionRow: Codable, Sendable {
    var backend: String
    /// `write` or `perform`.
    var form: String
    /// Units of work per round, all started at once.
    var units: Int
    /// Whether every unit updates the same sender.
    var hot: Bool
    var succeeded: Int
    var unitsPerSecond: Double
    var latency: LatencyStats
    /// Runs of the unit of work over every round, retries included (`perform`).
    var attempts: Int
    var rounds: Int
}

enum Contention {
    static let forms = ["write", "perform"]

    /// The unit counts of `form` on `backend`. Contexts retried on a hot record cost a whole run
    /// per conflict, each read a round trip on PostgreSQL: 1 000 of them there run for many
    /// minutes, so that row is left to LMDB (100 already show the cost, docs/contention.md).
    static func unitCounts(_ form: String, backend: String) -> [Int] {
        form == "perform" && backend == "PostgreSQL" ? [100] : [100, 1_000]
    }

    /// Rounds of each configuration, hot and independent alternating which goes first: the disk's
    /// speed drifts, and the first round on a fresh store pays for its growth.
    static let rounds = 3

    /// Every configuration on `store`, in collections named after `prefix`.
    static func rows(backend: String, store: any DocumentStore, prefix: String) async throws -> [ContentionRow] {
        var rows: [ContentionRow] = []
        for form in forms {
            for units in unitCounts(form, backend: backend) {
                var runs: [Bool: [Run]] = [true: [], false: []]
                for round in 0..<rounds {
                    for hot in round % 2 == 0 ? [true, false] : [false, true] {
                        let name = "\(prefix)-\(form)-\(units)-\(hot ? "hot" : "own")-\(round)"
                        runs[hot]!.append(try await run(form, units: units, hot: hot, store: store, name: name))
                    }
                }
                for hot in [true, false] {
                    let taken = runs[hot]!
                    let seconds = taken.reduce(0) { $0 + $1.seconds }
                    let succeeded = taken.reduce(0) { $0 + $1.succeeded }
                    rows.append(
                        ContentionRow(
                            backend: backend, form: form, units: units, hot: hot, succeeded: succeeded,
                            unitsPerSecond: Double(succeeded) / seconds,
                            latency: LatencyStats(taken.flatMap(\.latencies)),
                            attempts: taken.reduce(0) { $0 + $1.attempts }, rounds: taken.count))
                    progress(describe(rows[rows.count - 1]))
                }
            }
        }
        return rows
    }

    /// What one round of a configuration did.
    private struct Run {
        var succeeded: Int
        var seconds: Double
        var latencies: [UInt64]
        var attempts: Int
    }

    /// One round: `units` concurrent units of work, each timed from its start to its
    /// acknowledgement; checks that each sender's count is what its units added.
    private static func run(_ form: String, units: Int, hot: Bool, store: any DocumentStore, name: String)
        async throws -> Run
    {
        let plain = ObjectMapping<Document>(idField: "id", encode: { $0 }, decode: { $0 })
        let users = try await store.collection(name + "-users", mapping: plain)
        let messages = try await store.collection(name + "-messages", mapping: plain)
        let senders = hot ? 1 : units
        _ = try await users.add(contentsOf: (0..<senders).map { ["id": .string("u\($0)"), "sent": 0] })
        let started = Clock.wall()
        let outcomes = try await withThrowingTaskGroup(of: (UInt64, Int, Bool).self) { group in
            for unit in 0..<units {
                group.addTask {
                    let sender = Value.string("u\(hot ? 0 : unit)")
                    let start = Clock.wall()
                    var attempts = 0
                    do {
                        if form == "write" {
                            attempts = 1
                            try await store.write { tx in
                                try sendMessage(unit, from: sender, users: users, messages: messages) {
                                    try tx.get(id: $0, from: users)
                                } put: {
                                    try tx.put(id: sender, object: $0, in: users)
                                } add: {
                                    try tx.add($0, to: messages)
                                }
                            }
                        } else {
                            try await store.perform(attempts: 10_000) { uow in
                                attempts += 1
                                try sendMessage(unit, from: sender, users: users, messages: messages) {
                                    try uow.get(id: $0, from: users)
                                } put: {
                                    try uow.put(id: sender, object: $0, in: users)
                                } add: {
                                    try uow.add($0, to: messages)
                                }
                            }
                        }
                        return (Clock.wall() - start, attempts, true)
                    } catch {
                        return (Clock.wall() - start, attempts, false)
                    }
                }
            }
            return try await group.reduce(into: [(UInt64, Int, Bool)]()) { $0.append($1) }
        }
        let seconds = Double(Clock.wall() - started) / 1e9
        let succeeded = outcomes.filter(\.2).count
        let sent = try await users.query(params: nil, options: nil).reduce(0) { $0 + Int($1["sent"]?.intValue ?? 0) }
        let stored = try await messages.count(params: nil)
        guard sent == succeeded, stored == succeeded else {
            throw BenchmarkFailure(
                "contention \(name): \(succeeded) units acknowledged, senders count \(sent), \(stored) messages stored")
        }
        return Run(
            succeeded: succeeded, seconds: seconds, latencies: outcomes.filter(\.2).map(\.0),
            attempts: outcomes.reduce(0) { $0 + $1.1 })
    }

    /// The unit of work: read the sender, count the message on it, add the message.
    private static func sendMessage(
        _ unit: Int, from sender: Value, users: any DocumentCollection<Document>,
        messages: any DocumentCollection<Document>, get: (Value) throws -> Document, put: (Document) throws -> Document,
        add: (Document) throws -> Document
    ) throws {
        var user = try get(sender)
        user["sent"] = .int((user["sent"]?.intValue ?? 0) + 1)
        user["last_seen"] = .int(Int64(unit))
        _ = try put(user)
        _ = try add(["from": sender, "text": .string("message \(unit)"), "created_ts": .int(Int64(unit))])
    }

    /// The rows of the LMDB store: a durable store of its own in `directory`.
    static func lmdbRows(directory: String) async throws -> [ContentionRow] {
        let store = try DataStore.open(path: directory)
        defer { store.close() }
        return try await rows(backend: "LMDB", store: store, prefix: "contention")
    }

    static func describe(_ row: ContentionRow) -> String {
        "contention, \(row.backend), \(row.form), \(row.units) units on \(row.hot ? "one hot sender" : "their own senders"): "
            + "\(row.succeeded)/\(row.units * row.rounds) acknowledged over \(row.rounds) rounds, \(fixed(row.unitsPerSecond, 0)) units/s, "
            + "p50 \(fixed(row.latency.p50Microseconds / 1_000, 1)) ms, p99 \(fixed(row.latency.p99Microseconds / 1_000, 1)) ms, "
            + "\(row.attempts) runs"
    }

    /// Each form and count's hot rate ÷ independent rate on `backend`.
    static func ratios(_ rows: [ContentionRow], backend: String) -> [String] {
        var lines: [String] = []
        for form in forms {
            for units in unitCounts(form, backend: backend) {
                let matching = rows.filter { $0.backend == backend && $0.form == form && $0.units == units }
                guard let hot = matching.first(where: \.hot), let own = matching.first(where: { !$0.hot }) else {
                    continue
                }
                lines.append(
                    "\(backend) \(form), \(units) units: hot ÷ independent \(fixed(hot.unitsPerSecond / own.unitsPerSecond, 2))"
                )
            }
        }
        return lines
    }
}
