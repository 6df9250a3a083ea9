import DataStoreCore
import DataStoreKit
import DataStorePostgres

/// A collection of documents as the tool uses it, whichever store holds it: the LMDB store's
/// ``StoreCollection`` or the PostgreSQL store's ``PostgresCollection``.
protocol DocumentModel: ModelProtocol<Document> {
    /// The collection's name.
    var name: String { get }
    /// The field holding each document's id.
    var idField: String { get }
    /// The number of documents.
    func documentCount() throws -> Int
    /// How the store would answer the query.
    func explain(params: [String: Value]?, options: [String: Value]?) throws -> QueryPlan
    /// Calls `body` with successive chunks of at most `size` documents, in id order, each read from
    /// its own snapshot and resumed after the last id, so memory does not grow with the collection.
    func forEachChunk(size: Int, _ body: ([Document]) async throws -> Void) async throws
}

extension StoreCollection: DocumentModel where Object == Document {
    var idField: String { mapping.idField }
    func documentCount() throws -> Int { try count() }

    /// The pages of a stream sorted by id.
    func forEachChunk(size: Int, _ body: ([Document]) async throws -> Void) async throws {
        var chunk: [Document] = []
        chunk.reserveCapacity(size)
        let stream = try stream(params: nil, options: ["sort": .string(mapping.idField)], pageSize: size)
        for try await document in stream {
            chunk.append(document)
            if chunk.count == size {
                try await body(chunk)
                chunk.removeAll(keepingCapacity: true)
            }
        }
        if !chunk.isEmpty { try await body(chunk) }
    }
}

extension PostgresCollection: DocumentModel where Object == Document {
    var idField: String { mapping.idField }
    func documentCount() throws -> Int { try count(Query()) }

    /// Queries of `size` documents after the last id, integers first, then strings.
    func forEachChunk(size: Int, _ body: ([Document]) async throws -> Void) async throws {
        var last: Value?
        while true {
            let params: [String: Value] = last.map { ["\(idField) >": $0] } ?? [:]
            let documents = try await query(params: params, options: ["limit": .int(Int64(size))])
            var previous = last
            for document in documents {
                guard let id = document[idField], previous.map({ Value.compare($0, id) < 0 }) ?? true else {
                    throw ToolError(
                        .storage,
                        "the store answered a chunk of \(name) out of id order "
                            + "after id \(previous.map(\.description) ?? "(start)"); the export is incomplete")
                }
                previous = id
            }
            if !documents.isEmpty { try await body(documents) }
            if documents.count == size {
                last = previous
            } else if case .int? = last {
                last = .string("") // the integers are done: on to the strings
            } else {
                return
            }
        }
    }
}
