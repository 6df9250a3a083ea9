import DataStoreCore
import DataStoreKit

/// `datastore remove DIR COLLECTION ID`: removes a document.
enum RemoveCommand: Command {
    static let spec = CommandSpec(
        words: ["remove"],
        summary: "Remove the document stored under an id and print it.",
        positionals: [.directory, .collection, .id],
        options: CommandSpec.formatOptions,
        discussion: """
            example:
              datastore remove store Message 42
            """)

    static func run(_ arguments: ParsedArguments, console: Console) async throws -> ExitCode {
        let format = try OutputFormat.choose(arguments, outputIsTerminal: console.output.isTerminal)
        let id = try InputArguments.id(arguments.required("ID"))
        let store = try await StoreAccess.openAny(arguments.required("DIR"), readOnly: false)
        let collection = try await StoreAccess.collection(arguments.required("COLLECTION"), in: store)
        let removed = try await collection.remove(id: id)
        store.close()
        try DocumentPrinter(console: console, format: format, idField: collection.idField).print(removed)
        return .success
    }
}
