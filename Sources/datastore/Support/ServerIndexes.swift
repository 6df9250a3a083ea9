import DataStoreCore
import DataStoreKit
import DataStorePostgres

/// `datastore index add|list|drop` on a `postgresql://` URL: the same output as for a store
/// directory, from the server's statistics.
enum ServerIndexes {
    /// The statistics of the indexes of collection `name` on `store`.
    static func statistics(of name: String, in store: PostgresStore) throws -> [PostgresStatistics.Index] {
        try store.statistics().collections.first { $0.name == name }?.indexes ?? []
    }

    /// Declares and builds `definition` on collection `name` (nothing when it is already there).
    static func add(
        _ definition: IndexDefinition, to name: String, in opened: OpenedStore, _ store: PostgresStore, chunk: Int,
        format: OutputFormat, console: Console
    ) async throws -> ExitCode {
        let collection = try await StoreAccess.collection(name, in: opened)
        let current = try await store.documentCollection(collection.name).indexes
        // A build on the server is one transaction: it is there whole, or not at all.
        if try !IndexAddCommand.isDeclared(definition, among: current, on: name) {
            console.note("building index \(definition.name) on \(name) on the server (one transaction)")
            try await store.addIndex(definition, to: name, buildChunk: chunk)
        } else {
            console.note("collection \(name) already has the index \(definition)")
        }
        let built = try statistics(of: name, in: store).first { $0.definition.name == definition.name }
        try IndexAddCommand.printBuilt(
            definition, built, state: built == nil ? "missing" : "ready", on: name, format: format, console: console)
        return .success
    }

    /// Lists the indexes of collection `name`.
    static func list(
        _ name: String, in opened: OpenedStore, _ store: PostgresStore, format: OutputFormat, console: Console
    ) async throws -> ExitCode {
        let collection = try await StoreAccess.collection(name, in: opened)
        let indexes = try statistics(of: name, in: store)
        try printIndexList(indexes, collection: name, idField: collection.idField, format: format, console: console)
        return .success
    }
}
