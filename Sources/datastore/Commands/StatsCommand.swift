import DataStoreCore
import DataStoreKit
import DataStorePostgres

/// `datastore stats DIR`: collections, document counts, indexes, map size and use, readers.
enum StatsCommand: Command {
    static let spec = CommandSpec(
        words: ["stats"],
        summary: "Show collections, document counts, indexes, map size and use, readers and format version.",
        positionals: [.directory],
        options: CommandSpec.formatOptions,
        discussion: """
            example:
              datastore stats /var/lib/myapp/store
            """)

    static func run(_ arguments: ParsedArguments, console: Console) async throws -> ExitCode {
        let format = try OutputFormat.choose(arguments, outputIsTerminal: console.output.isTerminal)
        let store = try await StoreAccess.open(arguments.required("DIR"), readOnly: true)
        defer { store.close() }
        let report = try store.report()
        switch format {
        case .json: console.print(try JSONWriter.text(report.document))
        case .table: printTables(report, console: console)
        }
        return .success
    }

    /// The store's facts, its backend's listings, then a table of collections and one of indexes.
    private static func printTables(_ report: StoreReport, console: Console) {
        let summary = report.facts.compactMap { fact -> (String, String)? in
            guard let label = fact.label else { return nil }
            let value =
                fact.isByteCount
                ? byteSize(Int(fact.value.intValue ?? 0)) + (fact.text.map { " (\($0))" } ?? "")
                : fact.text ?? fact.value.stringValue ?? "\(fact.value)"
            return (label, value)
        }
        for line in CommandSpec.columns(summary) { console.print(String(line.dropFirst(2))) }
        console.print("")
        for listing in report.listings {
            var table = Table(listing.columns, rightAligned: Set(listing.rightAligned))
            for row in listing.rows { table.append(row) }
            for line in table.lines { console.print(line) }
            console.print("")
        }
        if report.collections.isEmpty {
            console.print("no collections")
            return
        }
        var collections = Table(["collection", "id field", "documents", "size", "indexes"], rightAligned: [2, 3, 4])
        var indexes = Table(
            ["collection", "index", "fields", "options", "state", "entries", "size"], rightAligned: [5, 6])
        for collection in report.collections {
            collections.append([
                collection.name, collection.idField, grouped(collection.documents), byteSize(collection.bytes),
                "\(collection.indexes.count)"
            ])
            for index in collection.indexes {
                indexes.append([
                    collection.name, index.definition.name, index.definition.fieldList, index.definition.traits,
                    index.stateText, grouped(index.entries), byteSize(index.bytes)
                ])
            }
        }
        for line in collections.lines { console.print(line) }
        guard !indexes.rows.isEmpty else { return }
        console.print("")
        for line in indexes.lines { console.print(line) }
    }
}
