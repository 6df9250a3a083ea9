import DataStoreCore
import DataStoreKit

/// `datastore get DIR COLLECTION ID`: one document.
enum GetCommand: Command {
    static let spec = CommandSpec(
        words: ["get"],
        summary: "Print the document stored under an id.",
        positionals: [.directory, .collection, .id],
        options: CommandSpec.formatOptions,
        discussion: """
            examples:
              datastore get store Message 42          # the integer id 42
              datastore get store Message '"42"'      # the string id "42"
              datastore get store User alice
            """)

    static func run(_ arguments: ParsedArguments, console: Console) async throws -> ExitCode {
        let format = try OutputFormat.choose(arguments, outputIsTerminal: console.output.isTerminal)
        let id = try InputArguments.id(arguments.required("ID"))
        let store = try await StoreAccess.open(arguments.required("DIR"), readOnly: true)
        let collection = try await StoreAccess.collection(arguments.required("COLLECTION"), in: store)
        let document = try await collection.get(id: id)
        try DocumentPrinter(console: console, format: format, idField: collection.mapping.idField).print(document)
        return .success
    }
}
