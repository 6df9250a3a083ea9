import DataStoreCore
import DataStoreKit

extension DocumentCollection where Object == Document {
    /// Calls `body` with successive chunks of at most `size` documents in id order — integers first,
    /// then strings — each read by its own query after the last id, so memory does not grow with
    /// the collection, on any store.
    func forEachChunk(size: Int, _ body: ([Document]) async throws -> Void) async throws {
        let idField = mapping.idField
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
