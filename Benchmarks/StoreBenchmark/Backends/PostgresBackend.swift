// DataStoreKit on PostgreSQL through its public API only: PostgresStore.open, a collection with
// the same indexes as on LMDB, add / put / get / query.
import DataStoreCore
import DataStoreKit
import DataStorePostgres
import Foundation

final class PostgresBackend: @unchecked Sendable {
    // @unchecked Sendable: `messages` changes only in `buildPairIndex`, which the workload driver
    // calls while no operation is running; the objects themselves are Sendable.
    let store: PostgresStore
    private(set) var messages: PostgresCollection<Message>
    private var indexes: [IndexDefinition] = [
        IndexDefinition("created_ts"), IndexDefinition("from_user_key"), IndexDefinition("to_user_key")
    ]

    init(conninfo: String, reads: String = "default") async throws {
        store = try await PostgresStore.open(url: conninfo, options: try Self.options(reads: reads))
        messages = try await store.collection("messages", mapping: .record(idField: "id"), indexes: indexes)
    }

    func close() { store.close() }

    /// The store's options for `--postgres-reads MODE`.
    static func options(reads mode: String) throws -> PostgresStore.Options {
        var options = PostgresStore.Options()
        switch mode {
        case "default": break
        case "threads": options.awaitedReads = false
        case "awaited": options.callerPoll = .zero
        default:
            guard mode.hasPrefix("poll="), let microseconds = Int(mode.dropFirst(5)), microseconds >= 0 else {
                throw BenchmarkFailure("--postgres-reads: default, threads, awaited or poll=MICROSECONDS, not \(mode)")
            }
            options.callerPoll = .microseconds(microseconds)
        }
        return options
    }

    /// `batch` as one change set (`add(contentsOf:)`): one transaction.
    func add(_ batch: some Collection<Message>) async throws {
        try await messages.add(contentsOf: Array(batch))
    }

    /// `batch` as one change set of replacements (`put(contentsOf:)`).
    func put(_ batch: some Collection<Message>) async throws {
        try await messages.put(contentsOf: Array(batch))
    }

    /// Declares the compound index; the store builds it from the rows (chunks of 10 000).
    func buildPairIndex() async throws {
        indexes.append(DataStoreKitBackend.pairIndex)
        messages = try await store.collection(
            "messages", mapping: .record(idField: "id"), indexes: indexes, indexBuildChunk: 10_000)
    }

    func get(id: String) async throws -> Message {
        try await messages.get(id: .string(id))
    }

    func created(since start: Double) async throws -> [Message] {
        try await messages.query(params: ["created_ts >=": .double(start)], options: ["limit": 100])
    }

    func messages(from sender: String, to recipient: String) async throws -> [Message] {
        try await messages.query(
            params: ["from_user_key": .string(sender), "to_user_key": .string(recipient)], options: nil)
    }

    func messages(ofType type: String) async throws -> [Message] {
        try await messages.query(params: ["type": .string(type)], options: nil)
    }

    /// The planner's choice and the server's EXPLAIN, for the report.
    func explain(_ params: [String: Value], _ options: [String: Value]? = nil) -> String {
        ((try? messages.explainOnServer(params: params, options: options)) ?? "?")
            .split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: "; ")
    }

    func count() async throws -> Int { try await messages.count(params: nil) }

    /// A store on the same server for the event log: `events` (named `name`) indexed on
    /// `created_ts`, with batches of at most `maxBatch` change sets.
    static func openEventLog(conninfo: String, name: String, maxBatch: Int) async throws
        -> (PostgresStore, PostgresCollection<Message>)
    {
        let store = try await PostgresStore.open(url: conninfo, options: PostgresStore.Options(maxBatch: maxBatch))
        let events: PostgresCollection<Message> = try await store.collection(
            name, mapping: .record(idField: "id"), indexes: [IndexDefinition("created_ts")])
        return (store, events)
    }
}
