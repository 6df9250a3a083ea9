import DataStoreCore
import DataStoreKit
import DataStorePostgres
import Foundation

/// Opening the store a command names — a directory's LMDB store or a PostgreSQL server — and the
/// collections it names, with errors that say what is missing. Commands then work through the
/// contract every store keeps (`DocumentStore`), never on one backend's type.
enum StoreAccess {
    /// Whether `location` is a URL (`scheme://…`) rather than a directory: a PostgreSQL server, or
    /// a scheme that the store then refuses by name.
    static func isURL(_ location: String) -> Bool {
        guard let separator = location.range(of: "://") else { return false }
        let scheme = location[..<separator.lowerBound]
        return scheme.first?.isLetter == true && scheme.allSatisfy { $0.isLetter || $0.isNumber || "+-.".contains($0) }
    }

    /// Opens the store at `location`: the PostgreSQL server a `postgresql://` URL names, or the
    /// store in a directory.
    /// - Parameters:
    ///   - readOnly: Open a directory without write access (commands that only read).
    ///   - create: Create the directory and a new store when it does not exist.
    ///   - durability: When a directory's commits are synced (default: each one, before it is
    ///     acknowledged); a server's commits are durable when acknowledged.
    /// - Throws: ``ToolError`` `.notFound` when there is no store at a directory (and `create` is
    ///   off), `.storage` (or the store's error) when it cannot be opened or the server reached.
    static func open(
        _ location: String, readOnly: Bool, create: Bool = false, durability: Durability = .durable
    ) async throws(ToolError) -> any DocumentStore {
        if isURL(location) {
            do { return try await PostgresStore.open(url: location) } catch { throw ToolError(error) }
        }
        var isDirectory: ObjCBool = false
        if !FileManager.default.fileExists(atPath: location, isDirectory: &isDirectory) {
            guard create else {
                throw ToolError(.notFound, "no store at \(location): the directory does not exist")
            }
        } else if !isDirectory.boolValue {
            throw ToolError(.storage, "\(location) is a file, not a store directory")
        } else if !create && !FileManager.default.fileExists(atPath: location + "/data.mdb") {
            throw ToolError(.notFound, "no store at \(location): the directory holds no data.mdb")
        }
        do {
            return try DataStore.open(
                path: location, options: DataStore.Options(durability: durability, readOnly: readOnly))
        } catch {
            throw ToolError(error)
        }
    }

    /// The problems opening the store at `location` would meet — damaged pages LMDB reads as it
    /// opens — found from its file first, or `nil` when there are none to find (a server, a
    /// directory that cannot be read, which opening reports).
    static func damageBeforeOpening(_ location: String) -> [IntegrityProblem]? {
        guard !isURL(location), let damage = try? DataStore.structureProblems(atPath: location), !damage.isEmpty
        else { return nil }
        return damage
    }

    /// The existing collection `name`, as documents.
    /// - Throws: ``ToolError`` `.notFound` naming the collection and listing those that exist.
    static func collection(_ name: String, in store: any DocumentStore) async throws(ToolError)
        -> any DocumentCollection<Document>
    {
        do {
            return try await store.documentCollection(name)
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

    /// The collection `name` for writing; created, identified by `idField` (default `id`), when
    /// the store has none of that name.
    /// - Throws: ``ToolError`` `.badInput` when `idField` differs from the stored collection's.
    static func writableCollection(
        _ name: String, in store: any DocumentStore, idField: String?, console: Console
    ) async throws(ToolError) -> any DocumentCollection<Document> {
        do {
            if try store.collectionNames().contains(name) {
                let collection = try await store.documentCollection(name)
                if let idField, idField != collection.mapping.idField {
                    throw ToolError(
                        .badInput,
                        "collection \(name) is identified by the field \(collection.mapping.idField), not \(idField)")
                }
                return collection
            }
            let field = idField ?? "id"
            let collection = try await store.collection(name, mapping: .documents(idField: field))
            console.note("created collection \(name) (id field \(field))")
            return collection
        } catch {
            throw ToolError(error)
        }
    }

    /// The statistics of collection `name`'s indexes.
    static func indexStatistics(of name: String, in store: any DocumentStore) throws -> [IndexStatistics] {
        try store.report().collections.first { $0.name == name }?.indexes ?? []
    }
}
