import DataStoreCore
import DataStoreKit

/// `datastore put DIR COLLECTION ID [DOCUMENT]`: stores a document under an id; with `--jsonl`,
/// stores the documents of a JSON Lines file, a batch per change set.
enum PutCommand: Command {
    static let spec = CommandSpec(
        words: ["put"],
        summary: "Store a document under an id (or JSON Lines in batches), replacing what was there.",
        positionals: [
            .directory, .collection,
            .init(name: "ID", help: CommandSpec.Positional.id.help + " Not with --jsonl.", optional: true),
            .init(name: "DOCUMENT", help: "A JSON object; read from standard input when left out or -.", optional: true)
        ],
        options: [.idField, .create] + LineBatches.options + CommandSpec.formatOptions,
        discussion: """
            The collection is created when the store has none of that name. The document's id
            field is set to ID, and the document is printed as stored.

            With --jsonl FILE, each line is a JSON object holding its id field; each batch of
            --batch lines is stored as one change set, all of it or none. A line that is not an
            object, has no id, or is refused stops the command (exit code 4) naming the batch's
            lines; every earlier batch is stored, so running it again after fixing the line is safe.

            examples:
              datastore put store User alice '{"name": "Alice", "email": "alice@example.com"}'
              datastore put store User --jsonl users.jsonl --no-sync
            """)

    static func run(_ arguments: ParsedArguments, console: Console) async throws -> ExitCode {
        let format = try OutputFormat.choose(arguments, outputIsTerminal: console.output.isTerminal)
        if let path = arguments.values["jsonl"] {
            return try await putLines(path, arguments, format: format, console: console)
        }
        guard let idText = arguments.positionals["ID"] else {
            throw ToolError(.usage, "put needs an ID (or --jsonl FILE); see 'datastore put --help'")
        }
        let id = try InputArguments.id(idText)
        let document = try InputArguments.document(arguments.positionals["DOCUMENT"])
        let store = try await StoreAccess.open(
            arguments.required("DIR"), readOnly: false, create: arguments.flag("create"))
        let collection = try await StoreAccess.writableCollection(
            arguments.required("COLLECTION"), in: store, idField: arguments.values["id-field"], console: console)
        let stored = try await collection.put(id: id, object: document)
        store.close()
        try DocumentPrinter(console: console, format: format, idField: collection.mapping.idField).print(stored)
        return .success
    }

    private static func putLines(
        _ path: String, _ arguments: ParsedArguments, format: OutputFormat, console: Console
    ) async throws -> ExitCode {
        let batches = try LineBatches(path, arguments, command: "put")
        let store = try await StoreAccess.open(
            arguments.required("DIR"), readOnly: false, create: arguments.flag("create"),
            durability: batches.durability)
        defer { store.close() }
        let collection = try await StoreAccess.writableCollection(
            arguments.required("COLLECTION"), in: store, idField: arguments.values["id-field"], console: console)
        let idField = collection.mapping.idField
        let progress = Progress(stream: console.errors, label: "storing", unit: "documents")
        let stored = try await batches.applyAll(progress: progress, verb: "stored") { lines in
            let documents = try lines.map { line throws(ToolError) -> Document in
                guard case .object(let document) = line.value else {
                    throw ToolError(.badInput, "line \(line.number) is \(line.value.typeName), not a JSON object")
                }
                _ = try LineBatches.id(of: line, idField: idField)
                return document
            }
            _ = try await collection.put(contentsOf: documents)
        }
        try batches.finish(store)
        try report(stored, verb: "stored", collection: collection.name, format: format, console: console)
        return .success
    }

    /// "stored 1,000 documents in User", or its JSON form.
    static func report(_ count: Int, verb: String, collection: String, format: OutputFormat, console: Console)
        throws
    {
        switch format {
        case .json:
            console.print(try JSONWriter.text([verb: .int(Int64(count)), "collection": .string(collection)]))
        case .table:
            let preposition = verb == "stored" ? "in" : "from"
            console.print("\(verb) \(grouped(count)) document\(count == 1 ? "" : "s") \(preposition) \(collection)")
        }
    }
}
