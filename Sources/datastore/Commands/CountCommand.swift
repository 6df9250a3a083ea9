import DataStoreCore
import DataStoreKit

/// `datastore count DIR COLLECTION [PARAMS]`: how many documents match, counted without loading them.
enum CountCommand: Command {
    static let spec = CommandSpec(
        words: ["count"],
        summary: "Print how many documents match query parameters (the same as query --count).",
        positionals: [
            .directory, .collection,
            .init(
                name: "PARAMS",
                help:
                    "A JSON object of conditions, such as '{\"name ^=\": \"Al\", \"rating exists\": true}' (default: {}).",
                optional: true)
        ],
        options: CommandSpec.formatOptions,
        discussion: """
            Counted from index entries alone when an index holds every condition's field, otherwise
            by checking the conditions on each candidate record's bytes; no document is built.

            examples:
              datastore count store Message
              datastore count store Message '{"status !in": ["spam"], "created_ts >=": 1437108600}'
            """)

    static func run(_ arguments: ParsedArguments, console: Console) async throws -> ExitCode {
        let format = try OutputFormat.choose(arguments, outputIsTerminal: console.output.isTerminal)
        let params = try InputArguments.parameters(arguments.positionals["PARAMS"])
        let store = try await StoreAccess.open(arguments.required("DIR"), readOnly: true)
        defer { store.close() }
        let collection = try await StoreAccess.collection(arguments.required("COLLECTION"), in: store)
        try print(try await collection.count(params: params), format: format, console: console)
        return .success
    }

    /// Prints a count: `{"count": n}` or the grouped number.
    static func print(_ count: Int, format: OutputFormat, console: Console) throws {
        switch format {
        case .json: console.print(try JSONWriter.text(["count": .int(Int64(count))]))
        case .table: console.print(grouped(count))
        }
    }
}
