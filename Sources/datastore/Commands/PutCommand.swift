import DataStoreCore
import DataStoreKit

/// `datastore put DIR COLLECTION ID [DOCUMENT]`: stores a document under an id.
enum PutCommand: Command {
    static let spec = CommandSpec(
        words: ["put"],
        summary: "Store a document under an id, replacing what was there, and print it as stored.",
        positionals: [
            .directory, .collection, .id,
            .init(name: "DOCUMENT", help: "A JSON object; read from standard input when left out or -.", optional: true)
        ],
        options: [.idField, .create] + CommandSpec.formatOptions,
        discussion: """
            The collection is created when the store has none of that name. The document's id
            field is set to ID.

            example:
              datastore put store User alice '{"name": "Alice", "email": "alice@example.com"}'
            """)

    static func run(_ arguments: ParsedArguments, console: Console) async throws -> ExitCode {
        let format = try OutputFormat.choose(arguments, outputIsTerminal: console.output.isTerminal)
        let id = try InputArguments.id(arguments.required("ID"))
        let document = try InputArguments.document(arguments.positionals["DOCUMENT"])
        let store = try await StoreAccess.openAny(
            arguments.required("DIR"), readOnly: false, create: arguments.flag("create"))
        let collection = try await StoreAccess.writableCollection(
            arguments.required("COLLECTION"), in: store, idField: arguments.values["id-field"], console: console)
        let stored = try await collection.put(id: id, object: document)
        store.close()
        try DocumentPrinter(console: console, format: format, idField: collection.idField).print(stored)
        return .success
    }
}
