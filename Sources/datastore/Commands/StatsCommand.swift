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
        let opened = try await StoreAccess.openAny(arguments.required("DIR"), readOnly: true)
        defer { opened.close() }
        let store: DataStore
        switch opened {
        case .directory(let directory): store = directory
        case .postgres(let server):
            let statistics = try server.statistics()
            switch format {
            case .json: console.print(try JSONWriter.text(statistics.document(url: server.url)))
            case .table: for line in statistics.lines(url: server.url) { console.print(line) }
            }
            return .success
        }
        let statistics = try store.statistics()
        switch format {
        case .json:
            console.print(try JSONWriter.text(statistics.document(path: store.path)))
        case .table:
            printTables(statistics, path: store.path, console: console)
        }
        return .success
    }

    private static func printTables(_ statistics: StoreStatistics, path: String, console: Console) {
        let percent = Double(statistics.bytesInUse) / Double(max(statistics.mapSize, 1)) * 100
        let summary = [
            ("store", path),
            ("format", "\(statistics.formatVersion)"),
            (
                "map size",
                "\(byteSize(statistics.mapSize)), \(byteSize(statistics.bytesInUse)) in use "
                    + "(\((percent * 10).rounded() / 10)%)"
            ),
            ("last commit", "transaction \(statistics.lastTransactionID)"),
            (
                "readers",
                "\(statistics.readersInUse) of \(statistics.maxReaders) slots in use, "
                    + "\(statistics.readers.count) holding a snapshot"
            )
        ]
        for line in CommandSpec.columns(summary) { console.print(String(line.dropFirst(2))) }
        console.print("")
        printReaders(statistics.readers, console: console)
        var collections = Table(["collection", "id field", "documents", "size", "indexes"], rightAligned: [2, 3, 4])
        var indexes = Table(
            ["collection", "index", "fields", "options", "state", "entries", "size"], rightAligned: [5, 6])
        for collection in statistics.collections {
            collections.append([
                collection.name, collection.idField, grouped(collection.documents),
                byteSize(collection.bytes), "\(collection.indexes.count)"
            ])
            for index in collection.indexes {
                indexes.append([
                    collection.name, index.definition.name, index.definition.fieldList, index.definition.traits,
                    index.stateText, grouped(index.entries), byteSize(index.bytes)
                ])
            }
        }
        if statistics.collections.isEmpty {
            console.print("no collections")
            return
        }
        for line in collections.lines { console.print(line) }
        guard !indexes.rows.isEmpty else { return }
        console.print("")
        for line in indexes.lines { console.print(line) }
    }

    /// One row per open read transaction: a reader far behind the last commit keeps the pages
    /// written since from being reused, so the file grows while it lives.
    private static func printReaders(_ readers: [StoreStatistics.Reader], console: Console) {
        guard !readers.isEmpty else { return }
        var table = Table(
            ["reader pid", "process", "snapshot", "commits behind", "age", "holder"], rightAligned: [0, 2, 3, 4])
        for reader in readers {
            let age =
                reader.age.map { duration in
                    let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
                    return "\((seconds * 10).rounded() / 10) s"
                } ?? "unknown"
            table.append([
                "\(reader.processID)", reader.isThisProcess ? "this" : "other", "transaction \(reader.snapshotID)",
                grouped(reader.commitsBehind), age, reader.holder ?? ""
            ])
        }
        for line in table.lines { console.print(line) }
        console.print("")
    }
}
