import DataStoreCore
import DataStoreKit
import DataStorePostgres

/// `datastore index drop DIR COLLECTION NAME`: removes a secondary index and its data.
enum IndexDropCommand: Command {
    static let spec = CommandSpec(
        words: ["index", "drop"],
        summary: "Remove a secondary index from a collection, with its data.",
        positionals: [
            .directory, .collection,
            .init(name: "NAME", help: "The index's name.")
        ],
        options: CommandSpec.formatOptions,
        discussion: """
            example:
              datastore index drop store Message created_ts
            """)

    static func run(_ arguments: ParsedArguments, console: Console) async throws -> ExitCode {
        let format = try OutputFormat.choose(arguments, outputIsTerminal: console.output.isTerminal)
        let name = arguments.required("COLLECTION")
        let indexName = arguments.required("NAME")
        let store = try await StoreAccess.open(arguments.required("DIR"), readOnly: false)
        defer { store.close() }
        _ = try await StoreAccess.collection(name, in: store)
        let dropped = try await store.dropIndex(named: indexName, from: name)
        switch format {
        case .json:
            console.print(try JSONWriter.text(["collection": .string(name), "dropped": .object(dropped.document)]))
        case .table: console.print("dropped index \(dropped) from \(name)")
        }
        return .success
    }
}
