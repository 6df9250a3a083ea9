import DataStoreCore
import DataStoreKit

/// `datastore add DIR COLLECTION [DOCUMENT]`: inserts a document.
enum AddCommand: Command {
    static let spec = CommandSpec(
        words: ["add"],
        summary: "Insert a document (a new id is generated when it has none) and print it as stored.",
        positionals: [
            .directory, .collection,
            .init(name: "DOCUMENT", help: "A JSON object; read from standard input when left out or -.", optional: true)
        ],
        options: [.idField, .create] + CommandSpec.formatOptions,
        discussion: """
            The collection is created when the store has none of that name.
            Adding an id that is already stored fails (exit code 4); use put to replace.

            examples:
              datastore add store Message '{"id": 1, "text": "hello", "created_ts": 1437108600}'
              echo '{"text": "no id: one is generated"}' | datastore add store Message
            """)

    static func run(_ arguments: ParsedArguments, console: Console) async throws -> ExitCode {
        let format = try OutputFormat.choose(arguments, outputIsTerminal: console.output.isTerminal)
        let document = try InputArguments.document(arguments.positionals["DOCUMENT"])
        let store = try await StoreAccess.open(
            arguments.required("DIR"), readOnly: false, create: arguments.flag("create"))
        let collection = try await StoreAccess.writableCollection(
            arguments.required("COLLECTION"), in: store, idField: arguments.values["id-field"], console: console)
        let stored = try await collection.add(object: document)
        store.close()
        try DocumentPrinter(console: console, format: format, idField: collection.mapping.idField).print(stored)
        return .success
    }
}
