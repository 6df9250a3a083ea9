import DataStoreCore
import DataStoreKit

/// `datastore remove DIR COLLECTION ID`: removes a document; with `--jsonl`, removes the ids of a
/// JSON Lines file, a batch per change set.
enum RemoveCommand: Command {
    static let spec = CommandSpec(
        words: ["remove"],
        summary: "Remove the document stored under an id and print it (or the ids of JSON Lines, in batches).",
        positionals: [
            .directory, .collection,
            .init(name: "ID", help: CommandSpec.Positional.id.help + " Not with --jsonl.", optional: true)
        ],
        options: LineBatches.options + CommandSpec.formatOptions,
        discussion: """
            With --jsonl FILE, each line is an id ("abc" or 42) or an object holding its id field;
            each batch of --batch lines is removed as one change set, all of it or none. An id that
            is not stored stops the command (exit code 3) naming the batch's lines; every earlier
            batch is removed.

            examples:
              datastore remove store Message 42
              jq -c '.id' stale.jsonl | datastore remove store Message --jsonl -
            """)

    static func run(_ arguments: ParsedArguments, console: Console) async throws -> ExitCode {
        let format = try OutputFormat.choose(arguments, outputIsTerminal: console.output.isTerminal)
        if let path = arguments.values["jsonl"] {
            return try await removeLines(path, arguments, format: format, console: console)
        }
        guard let idText = arguments.positionals["ID"] else {
            throw ToolError(.usage, "remove needs an ID (or --jsonl FILE); see 'datastore remove --help'")
        }
        let id = try InputArguments.id(idText)
        let store = try await StoreAccess.open(arguments.required("DIR"), readOnly: false)
        let collection = try await StoreAccess.collection(arguments.required("COLLECTION"), in: store)
        let removed = try await collection.remove(id: id)
        store.close()
        try DocumentPrinter(console: console, format: format, idField: collection.mapping.idField).print(removed)
        return .success
    }

    private static func removeLines(
        _ path: String, _ arguments: ParsedArguments, format: OutputFormat, console: Console
    ) async throws -> ExitCode {
        let batches = try LineBatches(path, arguments, command: "remove")
        let store = try await StoreAccess.open(
            arguments.required("DIR"), readOnly: false, durability: batches.durability)
        defer { store.close() }
        let collection = try await StoreAccess.collection(arguments.required("COLLECTION"), in: store)
        let idField = collection.mapping.idField
        let progress = Progress(stream: console.errors, label: "removing", unit: "documents")
        let removed = try await batches.applyAll(progress: progress, verb: "removed") { lines in
            // A context stages the batch's removals and saves them as one change set.
            let context = store.newContext(policy: .lastWriterWins)
            for line in lines {
                do {
                    _ = try context.remove(id: try LineBatches.id(of: line, idField: idField), from: collection)
                } catch let error as DataStoreError {
                    throw ToolError(ToolError(error).exitCode, "line \(line.number): " + error.message)
                }
            }
            _ = try await context.save()
        }
        try batches.finish(store)
        try PutCommand.report(removed, verb: "removed", collection: collection.name, format: format, console: console)
        return .success
    }
}
