import DataStoreCore
import DataStoreKit
import DataStorePostgres
import Foundation

/// Opening the store directory and the collections that commands name, with errors that say
/// what is missing.
enum StoreAccess {
    /// Opens the store in `path`.
    /// - Parameters:
    ///   - readOnly: Open without write access (commands that only read).
    ///   - create: Create the directory and a new store when `path` does not exist.
    ///   - durability: When commits are synced (default: each one, before it is acknowledged).
    /// - Throws: ``ToolError`` `.notFound` when there is no store at `path` (and `create` is off),
    ///   `.storage` when it cannot be opened.
    static func open(
        _ path: String, readOnly: Bool, create: Bool = false, durability: Durability = .durable
    ) throws(ToolError) -> DataStore {
        var isDirectory: ObjCBool = false
        if !FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
            guard create else {
                throw ToolError(.notFound, "no store at \(path): the directory does not exist")
            }
        } else if !isDirectory.boolValue {
            throw ToolError(.storage, "\(path) is a file, not a store directory")
        } else if !create && !FileManager.default.fileExists(atPath: path + "/data.mdb") {
            throw ToolError(.notFound, "no store at \(path): the directory holds no data.mdb")
        }
        do {
            return try DataStore.open(
                path: path, options: DataStore.Options(durability: durability, readOnly: readOnly))
        } catch {
            throw ToolError(error)
        }
    }

    /// Opens the store directory `location` for a command that works on directories only: a
    /// `postgresql://` URL is refused, before any connection, with `serverAdvice` (what does the
    /// job on a server).
    /// - Throws: ``ToolError`` `.badInput` for a URL; as ``open(_:readOnly:create:durability:)``.
    static func openDirectory(_ location: String, readOnly: Bool, serverAdvice: String) throws(ToolError) -> DataStore {
        if OpenedStore.isURL(location) { throw ToolError(.badInput, serverAdvice) }
        return try open(location, readOnly: readOnly)
    }

    /// Opens the store at `location`: a directory as ``open(_:readOnly:create:durability:)``
    /// does, or the PostgreSQL server a `postgresql://` URL names.
    /// - Throws: ``ToolError`` `.notFound` for a missing directory, `.storage` (or the store's
    ///   error) when it cannot be opened or the server cannot be reached.
    static func openAny(
        _ location: String, readOnly: Bool, create: Bool = false, durability: Durability = .durable
    ) async throws(ToolError) -> OpenedStore {
        guard OpenedStore.isURL(location) else {
            return .directory(try open(location, readOnly: readOnly, create: create, durability: durability))
        }
        do { return .postgres(try await PostgresStore.open(url: location)) } catch { throw ToolError(error) }
    }

    /// The existing collection `name` of either kind of store, as documents.
    /// - Throws: ``ToolError`` `.notFound` naming the collection and listing those that exist.
    static func collection(_ name: String, in store: OpenedStore) async throws(ToolError) -> any DocumentModel {
        do {
            return try await store.collection(name)
        } catch let error as DataStoreError where error.code == .notFound {
            let names = (try? store.collectionNames()) ?? []
            let listing =
                names.isEmpty
                ? "; the store has no collections" : "; the collections are " + names.joined(separator: ", ")
            throw ToolError(.notFound, "no collection \(name) in the store at \(store.location)" + listing)
        } catch {
            throw ToolError(error)
        }
    }

    /// The collection `name` of either kind of store for writing; created, identified by
    /// `idField` (default `id`), when the store has none of that name.
    /// - Throws: ``ToolError`` `.badInput` when `idField` differs from the stored collection's.
    static func writableCollection(
        _ name: String, in store: OpenedStore, idField: String?, console: Console
    ) async throws(ToolError) -> any DocumentModel {
        do {
            if try store.collectionNames().contains(name) {
                let collection = try await store.collection(name)
                if let idField, idField != collection.idField {
                    throw ToolError(
                        .badInput, "collection \(name) is identified by the field \(collection.idField), not \(idField)"
                    )
                }
                return collection
            }
            let field = idField ?? "id"
            let collection = try await store.createCollection(name, idField: field)
            console.note("created collection \(name) (id field \(field))")
            return collection
        } catch {
            throw ToolError(error)
        }
    }

    /// The existing collection `name`, as documents.
    /// - Throws: ``ToolError`` `.notFound` naming the collection and listing those that exist.
    static func collection(_ name: String, in store: DataStore) async throws(ToolError) -> StoreCollection<Document> {
        do {
            return try await store.documentCollection(name)
        } catch let error as DataStoreError where error.code == .notFound {
            throw ToolError(.notFound, "no collection \(name) in the store at \(store.path)" + listing(store))
        } catch {
            throw ToolError(error)
        }
    }

    /// The collection `name` for writing; created, identified by `idField` (default `id`), when
    /// the store has none of that name.
    /// - Throws: ``ToolError`` `.badInput` when `idField` differs from the stored collection's.
    static func writableCollection(
        _ name: String, in store: DataStore, idField: String?, console: Console
    ) async throws(ToolError) -> StoreCollection<Document> {
        do {
            if try store.collectionNames().contains(name) {
                let collection = try await store.documentCollection(name)
                if let idField, idField != collection.mapping.idField {
                    throw ToolError(
                        .badInput,
                        "collection \(name) is identified by the field \(collection.mapping.idField), "
                            + "not \(idField)")
                }
                return collection
            }
            let field = idField ?? "id"
            let collection = try await store.collection(name, mapping: .documents(idField: field), indexes: [])
            console.note("created collection \(name) (id field \(field))")
            return collection
        } catch {
            throw ToolError(error)
        }
    }

    /// "; the collections are A, B", or "; the store has no collections".
    private static func listing(_ store: DataStore) -> String {
        guard let names = try? store.collectionNames() else { return "" }
        return names.isEmpty
            ? "; the store has no collections" : "; the collections are " + names.joined(separator: ", ")
    }
}
