import DataStoreCore
import DataStoreKit

/// `datastore compact DIR COLLECTION`: rewrites a collection's pages full, in key order.
enum CompactCommand: Command {
    static let spec = CommandSpec(
        words: ["compact"],
        summary: "Rewrite a collection's records and indexes in key order into full pages.",
        positionals: [.directory, .collection],
        options: CommandSpec.formatOptions,
        discussion: """
            Documents stay byte for byte as they were. Documents added in random id order leave
            pages about two-thirds full; compacted, the collection takes fewer pages and a full
            scan reads fewer bytes. Other writers wait while it runs; readers go on. The data file
            does not shrink: later writes reuse the pages freed (backup --compact writes a smaller
            copy).

            example:
              datastore compact store Message
            """)

    static func run(_ arguments: ParsedArguments, console: Console) async throws -> ExitCode {
        let format = try OutputFormat.choose(arguments, outputIsTerminal: console.output.isTerminal)
        let name = arguments.required("COLLECTION")
        let store = try await StoreAccess.open(arguments.required("DIR"), readOnly: false)
        defer { store.close() }
        _ = try await StoreAccess.collection(name, in: store)
        let before = try bytes(of: name, in: store)
        do { try await store.compact(collection: name) } catch { throw ToolError(error) }
        let after = try bytes(of: name, in: store)
        switch format {
        case .json:
            console.print(
                try JSONWriter.text([
                    "collection": .string(name), "bytesBefore": .int(Int64(before)), "bytesAfter": .int(Int64(after))
                ]))
        case .table:
            console.print("compacted \(name): its records and indexes took \(byteSize(before)), now \(byteSize(after))")
        }
        return .success
    }

    /// The bytes of the pages collection `name`'s records and indexes use.
    private static func bytes(of name: String, in store: any DocumentStore) throws -> Int {
        let collection = try store.report().collections.first { $0.name == name }
        return (collection?.bytes ?? 0) + (collection?.indexes.reduce(0) { $0 + $1.bytes } ?? 0)
    }
}
