import DataStoreCore
import DataStoreKit

/// `datastore index drop DIR COLLECTION NAME`: removes a secondary index and its data.
enum IndexDropCommand: Command {
    static let spec = CommandSpec(
        words: ["index", "drop"],
        summary: "Remove a secondary index from a collection, with its data.",
        positionals: [
            .directory, .collection,
            .init(name: "NAME", help: "The index's name."),
        ],
        options: CommandSpec.formatOptions,
        discussion: """
            example:
              datastore index drop store Message created_ts
            """)

    static func run(_ arguments: ParsedArguments, console: Console) async throws -> ExitCode {
        let format = try OutputFormat.choose(arguments, outputIsTerminal: console.output.isTerminal)
        let store = try StoreAccess.open(arguments.required("DIR"), readOnly: false)
        let name = arguments.required("COLLECTION")
        let indexName = arguments.required("NAME")
        let current = try await StoreAccess.collection(name, in: store).indexes
        guard let dropped = current.first(where: { $0.name == indexName }) else {
            let names = current.map(\.name)
            throw ToolError(.notFound, "collection \(name) has no index \(indexName); "
                + (names.isEmpty ? "it has no secondary indexes" : "its indexes are " + names.joined(separator: ", ")))
        }
        try await store.redeclareIndexes(current.filter { $0.name != indexName }, on: name)
        store.close()
        switch format {
        case .json: console.print(try JSONWriter.text(["collection": .string(name), "dropped": .object(dropped.document)]))
        case .table: console.print("dropped index \(dropped) from \(name)")
        }
        return .success
    }
}
