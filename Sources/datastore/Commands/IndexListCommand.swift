import DataStoreCore
import DataStoreKit
import DataStorePostgres

/// `datastore index list DIR COLLECTION`: a collection's secondary indexes.
enum IndexListCommand: Command {
    static let spec = CommandSpec(
        words: ["index", "list"],
        summary: "List a collection's secondary indexes, with their state and entry count.",
        positionals: [.directory, .collection],
        options: CommandSpec.formatOptions,
        discussion: """
            example:
              datastore index list store Message
            """)

    static func run(_ arguments: ParsedArguments, console: Console) async throws -> ExitCode {
        let format = try OutputFormat.choose(arguments, outputIsTerminal: console.output.isTerminal)
        let name = arguments.required("COLLECTION")
        let opened = try await StoreAccess.openAny(arguments.required("DIR"), readOnly: true)
        if case .postgres(let server) = opened {
            defer { opened.close() }
            return try await ServerIndexes.list(name, in: opened, server, format: format, console: console)
        }
        let store = try opened.directoryStore(for: "index list")
        let collection = try await StoreAccess.collection(name, in: store)
        let indexes = try IndexListCommand.statistics(of: name, in: store)
        try printIndexList(
            indexes, collection: name, idField: collection.mapping.idField, format: format, console: console)
        return .success
    }

    /// The statistics of the indexes of collection `name`.
    static func statistics(of name: String, in store: DataStore) throws -> [StoreStatistics.Index] {
        try store.statistics().collections.first { $0.name == name }?.indexes ?? []
    }
}
