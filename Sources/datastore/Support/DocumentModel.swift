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
}

extension StoreCollection: DocumentModel where Object == Document {
    var idField: String { mapping.idField }
    func documentCount() throws -> Int { try count() }
}

extension PostgresCollection: DocumentModel where Object == Document {
    var idField: String { mapping.idField }
    func documentCount() throws -> Int { try count(Query()) }
}
