import DataStoreCore
import DataStoreKit
import DataStorePostgres
import Foundation

/// `datastore index add DIR COLLECTION NAME`: declares and builds a secondary index.
enum IndexAddCommand: Command {
    static let spec = CommandSpec(
        words: ["index", "add"],
        summary: "Add a secondary index to a collection and build it from the stored documents.",
        positionals: [
            .directory, .collection,
            .init(name: "NAME", help: "The index's name; also its field when --fields is left out.")
        ],
        options: [
            .value(
                "fields", "FIELDS",
                "The fields in key order, comma-separated, '-' for descending (from_user_key,-created_ts)."),
            .flag("unique", "Refuse two documents with the same values (the build fails if two already share them)."),
            .flag("multi-value", "Index each element of an array field (one field only)."),
            .flag("covering", "Carry each document in its entries, so queries the index serves read no record."),
            .value("chunk", "N", "Index N documents per commit while building a unique index (default: 1000).")
        ] + CommandSpec.formatOptions,
        discussion: """
            The build reads the stored documents from one snapshot, sorts their entries and
            appends them in key order (a unique index: in chunks, each its own commit), while the
            store stays usable; queries use the index once it is complete. Progress is shown on
            standard error.

            examples:
              datastore index add store Message created_ts
              datastore index add store Message by_pair --fields from_user_key,-created_ts
              datastore index add store User email --unique
            """)

    static func run(_ arguments: ParsedArguments, console: Console) async throws -> ExitCode {
        let format = try OutputFormat.choose(arguments, outputIsTerminal: console.output.isTerminal)
        let chunk = try arguments.positive("chunk", default: 1_000)
        let definition = try IndexAddCommand.definition(arguments)
        let name = arguments.required("COLLECTION")
        let store = try await StoreAccess.open(arguments.required("DIR"), readOnly: false)
        defer { store.close() }
        let collection = try await StoreAccess.collection(name, in: store)
        let current = collection.indexes
        if try !isDeclared(definition, among: current, on: name) {
            try await build(definition, on: name, in: store, chunk: chunk, console: console)
        } else if try StoreAccess.indexStatistics(of: name, in: store).first(where: {
            $0.definition.name == definition.name
        })?.state == "building" {
            // A build that did not finish (its process was killed, say): declaring it again finishes it.
            console.note("index \(definition.name) on \(name) was left building: resuming its build")
            try await build(definition, on: name, in: store, chunk: chunk, console: console)
        } else {
            console.note("collection \(name) already has the index \(definition)")
        }
        let built = try StoreAccess.indexStatistics(of: name, in: store).first { $0.definition.name == definition.name }
        try printBuilt(definition, built, on: name, format: format, console: console)
        return .success
    }

    /// Whether collection `name` already declares `definition`.
    /// - Throws: ``ToolError`` `.badInput` when an index of the same name is declared differently.
    static func isDeclared(_ definition: IndexDefinition, among current: [IndexDefinition], on name: String) throws
        -> Bool
    {
        guard let existing = current.first(where: { $0.name == definition.name }) else { return false }
        guard existing == definition else {
            throw ToolError(
                .badInput,
                "collection \(name) already has an index \(existing.name): \(existing); "
                    + "drop it first to declare \(definition)")
        }
        return true
    }

    /// Prints the index `index add` declared, as the store reports it (`missing` when it does not).
    static func printBuilt(
        _ definition: IndexDefinition, _ built: IndexStatistics?, on name: String, format: OutputFormat,
        console: Console
    ) throws {
        switch format {
        case .json:
            console.print(
                try JSONWriter.text(["collection": .string(name), "index": built.map { .object($0.document) } ?? .null])
            )
        case .table:
            console.print(
                "index \(definition) on \(name): \(built?.stateText ?? "missing"), \(grouped(built?.entries ?? 0)) entries"
            )
        }
    }

    /// The index the arguments declare.
    /// - Throws: ``ToolError`` `.usage` for an empty field name in `--fields`.
    static func definition(_ arguments: ParsedArguments) throws(ToolError) -> IndexDefinition {
        var fields: [IndexDefinition.Field] = []
        for item in (arguments.values["fields"] ?? "").split(separator: ",", omittingEmptySubsequences: false)
        where arguments.values["fields"] != nil {
            let descending = item.hasPrefix("-")
            let field = String(descending ? item.dropFirst() : item)
            guard !field.isEmpty else {
                throw ToolError(
                    .usage, "option --fields \"\(arguments.values["fields"] ?? "")\" has an empty field name")
            }
            fields.append(IndexDefinition.Field(field, descending: descending))
        }
        return IndexDefinition(
            arguments.required("NAME"), fields: fields,
            unique: arguments.flag("unique"), multiValue: arguments.flag("multi-value"),
            covering: arguments.flag("covering") ? .document : nil)
    }

    /// Adds `definition` to collection `name`, showing its entries grow where the store can tell.
    private static func build(
        _ definition: IndexDefinition, on name: String, in store: any DocumentStore, chunk: Int, console: Console
    ) async throws {
        let documents = try await StoreAccess.collection(name, in: store).count(Query())
        let shown = SharedProgress(
            Progress(stream: console.errors, label: "building index \(definition.name)", unit: "entries"))
        try await store.addIndex(definition, to: name, buildChunk: chunk) { entries in
            shown.update(entries, fraction: min(Double(entries) / Double(max(documents, 1)), 1))
        }
        shown.finish()
    }
}

/// A progress line the store's build reports to from its own task: reached only under a lock.
private final class SharedProgress: @unchecked Sendable {
    private let progress: Progress
    private let lock = NSLock()

    init(_ progress: Progress) { self.progress = progress }

    func update(_ completed: Int, fraction: Double) {
        lock.withLock { progress.update(completed: completed, fraction: fraction) }
    }

    func finish() { lock.withLock { progress.finish() } }
}
