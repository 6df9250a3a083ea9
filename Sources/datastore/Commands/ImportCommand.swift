import DataStoreCore
import DataStoreKit

/// `datastore import DIR COLLECTION [FILE]`: stores the documents of a JSON Lines file.
enum ImportCommand: Command {
    static let spec = CommandSpec(
        words: ["import"],
        summary: "Store the documents of a JSON Lines file (one object per line), streaming.",
        positionals: [
            .directory, .collection,
            .init(name: "FILE", help: "The JSON Lines file; standard input when left out or -.", optional: true)
        ],
        options: [
            .flag("insert", "Add every document, failing on an id already stored (default: replace it)."),
            .value("in-flight", "N", "Keep at most N writes queued to the writer at once (default: 512)."),
            .flag(
                "no-sync",
                "Sync once at the end instead of at every commit: faster; a machine crash meanwhile may lose batches."),
            .idField, .create
        ] + CommandSpec.formatOptions,
        discussion: """
            The file is read line by line; blank lines are skipped. Each document with an id is
            stored under it (put, replacing what was there; --insert adds instead), and each one
            without an id gets a new one. Writes go to the store's writer, which commits them in
            batches. The collection is created when the store has none of that name.

            A line that is not a JSON object, or that the store refuses, stops the import with its
            line number (exit code 4). Every line before it is stored; later lines that were already
            queued may be stored too (the message counts them). Without --insert, running the same
            import again after fixing the line is safe.

            With --no-sync, commits are not synced one by one (a crash of the tool loses nothing
            acknowledged; a crash of the machine may), and the store is synced once at the end.

            Progress is a bar on standard error when it is a terminal, a line every two seconds
            otherwise.

            examples:
              datastore import store Message messages.jsonl
              gunzip -c messages.jsonl.gz | datastore import store Message
            """)

    /// What one write reports back.
    private struct Outcome: Sendable {
        var line: Int
        /// How many documents were submitted before this one.
        var ordinal: Int
        var error: ToolError?
    }

    /// The first line that failed, and how many documents came before it.
    private struct Failure {
        var line: Int
        var ordinal: Int
        var error: ToolError
    }

    /// The running count of one import.
    private struct Tally {
        var stored = 0
        var submitted = 0
        var failure: Failure?

        mutating func record(_ outcome: Outcome) {
            guard let error = outcome.error else {
                stored += 1
                return
            }
            if failure.map({ outcome.line < $0.line }) ?? true {
                failure = Failure(line: outcome.line, ordinal: outcome.ordinal, error: error)
            }
        }
    }

    static func run(_ arguments: ParsedArguments, console: Console) async throws -> ExitCode {
        let format = try OutputFormat.choose(arguments, outputIsTerminal: console.output.isTerminal)
        let limit = try arguments.positive("in-flight", default: 512)
        let insert = arguments.flag("insert")
        let path = arguments.positionals["FILE"] ?? "-"
        let reader = try LineReader(path: path)
        let noSync = arguments.flag("no-sync")
        let store = try await StoreAccess.open(
            arguments.required("DIR"), readOnly: false, create: arguments.flag("create"),
            durability: noSync ? .none : .durable)
        let collection = try await StoreAccess.writableCollection(
            arguments.required("COLLECTION"), in: store, idField: arguments.values["id-field"], console: console)
        let progress = Progress(stream: console.errors, label: "importing", unit: "documents")
        var tally = Tally()
        try await submitLines(of: reader, to: collection, insert: insert, inFlight: limit, progress, &tally)
        progress.finish()
        if noSync {
            try store.sync()
        }
        store.close()

        if let failure = tally.failure { throw stopped(failure, stored: tally.stored) }
        try printSummary(
            stored: tally.stored, lines: reader.lineNumber, collection.name, progress.elapsedSeconds, format, console)
        return .success
    }

    /// Reads the lines of `reader` and submits each document, keeping at most `limit` writes
    /// queued, until the end or the first line that cannot be read or stored.
    private static func submitLines(
        of reader: LineReader, to collection: any DocumentCollection<Document>, insert: Bool, inFlight limit: Int,
        _ progress: Progress, _ tally: inout Tally
    ) async throws {
        let idField = collection.mapping.idField
        try await withThrowingTaskGroup(of: Outcome.self) { group in
            var inFlight = 0
            while tally.failure == nil, let line = try reader.nextLine() {
                if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { continue }
                let number = reader.lineNumber
                let document: Document
                do throws(ToolError) {
                    document = try JSONReader.document(line, what: "line \(number)")
                } catch {
                    tally.record(Outcome(line: number, ordinal: tally.submitted, error: error))
                    break
                }
                if inFlight >= limit, let outcome = try await group.next() {
                    inFlight -= 1
                    tally.record(outcome)
                }
                let ordinal = tally.submitted
                group.addTask {
                    await save(document, into: collection, idField: idField, insert: insert, line: number, ordinal)
                }
                tally.submitted += 1
                inFlight += 1
                progress.update(
                    completed: tally.stored,
                    fraction: reader.totalBytes.map { Double(reader.bytesRead) / Double(max($0, 1)) })
            }
            for try await outcome in group { tally.record(outcome) }
        }
    }

    /// Stores one document: a put under its id, or an add when it has none (or with `--insert`).
    private static func save(
        _ document: Document, into collection: any DocumentCollection<Document>, idField: String, insert: Bool,
        line: Int,
        _ ordinal: Int
    ) async -> Outcome {
        do {
            if let id = document[idField], !id.isNull, id != .string(""), !insert {
                _ = try await collection.put(id: id, object: document)
            } else {
                _ = try await collection.add(object: document)
            }
            return Outcome(line: line, ordinal: ordinal, error: nil)
        } catch {
            return Outcome(line: line, ordinal: ordinal, error: ToolError(error).prefixed("line \(line): "))
        }
    }

    /// The error an import stops with: the first failing line's, with what was stored before it.
    private static func stopped(_ failure: Failure, stored: Int) -> ToolError {
        let later = stored - failure.ordinal
        var message =
            "\(failure.error.message). Import stopped: the \(grouped(failure.ordinal)) "
            + "document\(failure.ordinal == 1 ? "" : "s") before line \(failure.line) \(failure.ordinal == 1 ? "is" : "are") stored"
        if later > 0 { message += ", and \(grouped(later)) later one\(later == 1 ? "" : "s") already queued" }
        return ToolError(failure.error.exitCode, message)
    }

    private static func printSummary(
        stored: Int, lines: Int, _ collection: String, _ seconds: Double, _ format: OutputFormat, _ console: Console
    ) throws {
        switch format {
        case .json:
            console.print(
                try JSONWriter.text([
                    "imported": .int(Int64(stored)), "lines": .int(Int64(lines)),
                    "collection": .string(collection), "seconds": .double((seconds * 1000).rounded() / 1000)
                ]))
        case .table:
            let rate = Int(Double(stored) / max(seconds, 0.001))
            console.print(
                "imported \(grouped(stored)) documents into \(collection) from \(grouped(lines)) "
                    + "lines in \((seconds * 10).rounded() / 10) s (\(grouped(rate))/s)")
        }
    }
}

extension ToolError {
    /// The same error with `prefix` before its message.
    func prefixed(_ prefix: String) -> ToolError {
        ToolError(exitCode, prefix + message)
    }
}
