import DataStoreCore
import DataStoreKit
import DataStorePostgres

/// The store a command works on: an LMDB store directory, or a PostgreSQL server named by a
/// `postgresql://` URL where a command takes a directory. Commands that work on either open it
/// with ``StoreAccess/open(_:readOnly:create:durability:)-(String,_,_,_)`` and reach
/// collections through it.
enum OpenedStore {
    case directory(DataStore)
    case postgres(PostgresStore)

    /// Whether `location` is a URL (`scheme://…`) rather than a directory: a PostgreSQL server, or
    /// a scheme that the store then refuses by name.
    static func isURL(_ location: String) -> Bool {
        guard let separator = location.range(of: "://") else { return false }
        let scheme = location[..<separator.lowerBound]
        return scheme.first?.isLetter == true && scheme.allSatisfy { $0.isLetter || $0.isNumber || "+-.".contains($0) }
    }

    /// Where the store is, for messages.
    var location: String {
        switch self {
        case .directory(let store): store.path
        case .postgres(let store): store.url
        }
    }

    /// The LMDB store, for commands that only it supports.
    /// - Throws: ``ToolError`` `.badInput` naming `command` for a PostgreSQL store.
    func directoryStore(for command: String) throws(ToolError) -> DataStore {
        guard case .directory(let store) = self else {
            throw ToolError(.badInput, "datastore \(command) works on a store directory, not on \(location)")
        }
        return store
    }

    /// The names of the collections stored.
    func collectionNames() throws -> [String] {
        switch self {
        case .directory(let store): try store.collectionNames()
        case .postgres(let store): try store.collectionNames()
        }
    }

    /// The existing collection `name`, as documents.
    func collection(_ name: String) async throws -> any DocumentModel {
        switch self {
        case .directory(let store): try await store.documentCollection(name)
        case .postgres(let store): try await store.documentCollection(name)
        }
    }

    /// Creates the collection `name`, identified by `idField`.
    func createCollection(_ name: String, idField: String) async throws -> any DocumentModel {
        switch self {
        case .directory(let store): try await store.collection(name, mapping: .documents(idField: idField))
        case .postgres(let store): try await store.collection(name, mapping: .documents(idField: idField))
        }
    }

    /// Makes what was written durable, for stores opened without syncing each commit.
    func sync() throws {
        if case .directory(let store) = self { try store.sync() }
    }

    /// Closes the store once what is queued has committed.
    func close() {
        switch self {
        case .directory(let store): store.close()
        case .postgres(let store): store.close()
        }
    }
}
