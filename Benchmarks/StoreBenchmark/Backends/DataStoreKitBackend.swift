// DataStoreKit through its public API only: DataStore.open, the messages collection with the same
// indexes (reads through the Codable mapping most users write, and through RecordDecodable beside
// it), add / put / get / query, and the writer's metrics.
import DataStoreCore
import DataStoreKit

final class DataStoreKitBackend: @unchecked Sendable {
    // @unchecked Sendable: `store` and `messages` change only in `open`/`close`, which the
    // workload driver calls while no operation is running; the objects themselves are Sendable.
    let path: String
    private(set) var store: DataStore!
    private(set) var messages: StoreCollection<Message>! {
        didSet { pairQuery = messages.map(Self.preparePair) }
    }
    /// The same collection read through `Codable` (`.codable` mapping) instead of `RecordDecodable`.
    private(set) var codableMessages: StoreCollection<Message>! {
        didSet { codablePairQuery = codableMessages.map(Self.preparePair) }
    }
    /// The sender-and-recipient query prepared on each collection, planned once per shape.
    private var pairQuery: PreparedQuery<Message>?
    private var codablePairQuery: PreparedQuery<Message>?
    private(set) var limits = WriterLimits()
    let mapSize: Int
    private var indexes: [IndexDefinition] = [
        IndexDefinition("created_ts"), IndexDefinition("from_user_key"), IndexDefinition("to_user_key")
    ]
    static let pairIndex = IndexDefinition("pair", fields: ["from_user_key", "to_user_key"])

    /// - Parameter coveringCreated: Declare the `created_ts` index covering (its entries carry
    ///   the documents), so the range workload reads no record.
    init(path: String, mapSize: Int, coveringCreated: Bool = false) async throws {
        self.path = path
        self.mapSize = mapSize
        if coveringCreated { indexes[0] = Self.coveringCreatedIndex }
        try await open(limits: WriterLimits())
    }

    static let coveringCreatedIndex = IndexDefinition("created_ts", covering: .document)

    /// Redeclares the `created_ts` index covering; the store rebuilds it from the records.
    func coverCreated() async throws {
        indexes[0] = Self.coveringCreatedIndex
        messages = try await store.collection(
            "messages", mapping: .record(idField: "id"), indexes: indexes, indexBuildChunk: 10_000)
        codableMessages = try await store.collection("messages", mapping: .codable(idField: "id"), indexes: indexes)
    }

    /// Opens the store (durable saves) with the given writer limits.
    func open(limits: WriterLimits) async throws {
        self.limits = limits
        let store = try DataStore.open(
            path: path,
            options: DataStore.Options(
                mapSize: mapSize, durability: .durable, writerLimits: limits))
        self.store = store
        messages = try await store.collection("messages", mapping: .record(idField: "id"), indexes: indexes)
        codableMessages = try await store.collection("messages", mapping: .codable(idField: "id"), indexes: indexes)
    }

    /// Closes the store and lets it go, so the path can be opened again with other options.
    func close() {
        store?.close()
        messages = nil
        codableMessages = nil
        store = nil
    }

    /// Closes and reopens with other writer limits (the "one transaction per save" baseline).
    func reopen(limits: WriterLimits) async throws {
        close()
        // The writer thread ends after the last reference goes; the environment registry makes
        // a new open of the path wait for the old handle to close.
        try await open(limits: limits)
        guard store.writerMetrics.batches == 0 else {
            throw BenchmarkFailure("reopening \(path) returned the old store (writer metrics not fresh)")
        }
    }

    var metrics: WriterMetrics { store.writerMetrics }

    // MARK: Writing

    /// `batch` as one change set (`add(contentsOf:)`): one commit, as raw LMDB's one transaction.
    func add(_ batch: some Collection<Message> & Sendable) async throws {
        try await messages!.add(contentsOf: Array(batch))
    }

    /// `batch` as one change set of replacements (`put(contentsOf:)`).
    func put(_ batch: some Collection<Message> & Sendable) async throws {
        try await messages!.put(contentsOf: Array(batch))
    }

    /// Repacks the messages' records and index entries in key order (`DataStore.compact(collection:)`).
    func compact() async throws { try await store.compact(collection: "messages") }

    /// Declares the compound index; the store builds it from the records (chunks of 10,000).
    func buildPairIndex() async throws {
        indexes.append(Self.pairIndex)
        messages = try await store.collection(
            "messages", mapping: .record(idField: "id"), indexes: indexes,
            indexBuildChunk: 10_000)
        codableMessages = try await store.collection("messages", mapping: .codable(idField: "id"), indexes: indexes)
    }

    /// Drops the compound index again (for profiling repeated builds).
    func dropPairIndex() async throws {
        indexes.removeAll { $0.name == Self.pairIndex.name }
        try await store.dropIndex(named: Self.pairIndex.name, from: "messages")
    }

    // MARK: Reading

    /// The collection reads go through: `Codable` decoding, or `RecordDecodable`.
    private func reader(_ codable: Bool) -> StoreCollection<Message> { codable ? codableMessages : messages }

    func get(id: String, codable: Bool = false) throws -> Message {
        try reader(codable).get(id: .string(id))
    }

    func created(since start: Double, codable: Bool = false) throws -> [Message] {
        try reader(codable).query(Query(params: ["created_ts >=": .double(start)], options: ["limit": 100]))
    }

    func messages(from sender: String, to recipient: String, codable: Bool = false) throws -> [Message] {
        try reader(codable).query(
            params: ["from_user_key": .string(sender), "to_user_key": .string(recipient)], options: nil)
    }

    /// ``messages(from:to:codable:)`` through a prepared query: values bound, no key parsed.
    func preparedMessages(from sender: String, to recipient: String, codable: Bool = false) throws -> [Message] {
        try (codable ? codablePairQuery : pairQuery)!.run(
            ["from_user_key": .string(sender), "to_user_key": .string(recipient)])
    }

    private static func preparePair(_ collection: StoreCollection<Message>) -> PreparedQuery<Message> {
        // The keys and kinds are constants that prepare: a failure is a bug in this file.
        try! collection.prepareQuery(params: ["from_user_key": .parameter(.string), "to_user_key": .parameter(.string)])
    }

    func messages(ofType type: String, codable: Bool = false) throws -> [Message] {
        try reader(codable).query(Query(params: ["type": .string(type)], options: nil))
    }

    func explain(_ params: [String: Value], _ options: [String: Value]? = nil) -> String {
        (try? messages.explain(params: params, options: options)).map { "\($0)" } ?? "?"
    }

    func count() throws -> Int { try messages.count() }
}

struct BenchmarkFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// The store reads and writes messages field by field (`RecordDecodable`, `RecordEncodable`), as
/// the raw backend decodes and encodes its records by hand.
extension Message: RecordDecodable, RecordEncodable {
    init(record: borrowing RecordFields) throws {
        self.init(
            id: try record.string("id") ?? "",
            from_user_key: try record.string("from_user_key") ?? "",
            to_user_key: try record.string("to_user_key") ?? "",
            message: try record.string("message") ?? "",
            created_ts: try record.double("created_ts") ?? 0,
            type: try record.string("type") ?? "")
    }

    func encode(to record: inout RecordWriter) {
        record.write(id, for: "id")
        record.write(from_user_key, for: "from_user_key")
        record.write(to_user_key, for: "to_user_key")
        record.write(message, for: "message")
        record.write(created_ts, for: "created_ts")
        record.write(type, for: "type")
    }
}
