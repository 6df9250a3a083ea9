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
        let store = try await StoreAccess.open(arguments.required("DIR"), readOnly: true)
        defer { store.close() }
        let collection = try await StoreAccess.collection(name, in: store)
        let indexes = try StoreAccess.indexStatistics(of: name, in: store)
        try printIndexList(
            indexes, collection: name, idField: collection.mapping.idField, format: format, console: console)
        return .success
    }
}
