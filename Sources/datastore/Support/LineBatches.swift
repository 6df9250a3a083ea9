import DataStoreCore
import DataStoreKit

/// JSON Lines applied a batch at a time, each batch one change set (`put --jsonl`,
/// `remove --jsonl`): a batch is stored whole or not at all, and a failure names its line.
struct LineBatches {
    /// One line's value and its number in the file.
    struct Line {
        var number: Int
        var value: Value
    }

    let reader: LineReader
    let size: Int
    /// Whether commits are left unsynced until ``finish(_:)`` (`--no-sync`).
    let noSync: Bool

    /// The batches of `command --jsonl path`, which takes no ID as well, sized by `--batch`.
    init(_ path: String, _ arguments: ParsedArguments, command: String) throws {
        if arguments.positionals["ID"] != nil {
            throw ToolError(.usage, "\(command) takes an ID or --jsonl FILE, not both")
        }
        reader = try LineReader(path: path)
        size = try arguments.positive("batch", default: 1_000)
        noSync = arguments.flag("no-sync")
    }

    /// How the store is opened for these batches: commits unsynced with `--no-sync`.
    var durability: Durability { noSync ? .none : .durable }

    /// Syncs the store once at the end when commits were not synced one by one.
    func finish(_ store: any DocumentStore) throws {
        if noSync { try store.sync() }
    }

    /// The options `put` and `remove` take for JSON Lines.
    static let options: [CommandSpec.Option] = [
        .value("jsonl", "FILE", "Read JSON Lines from FILE (- for standard input) instead of one ID; see below."),
        .value("batch", "N", "With --jsonl: apply N lines per change set (default: 1000)."),
        .flag(
            "no-sync",
            "With --jsonl: sync once at the end instead of at every commit (a machine crash may lose batches).")
    ]

    /// The next batch of at most ``size`` non-blank lines, or `nil` at the end.
    /// - Throws: ``ToolError`` `.badInput` naming the line that is not JSON.
    func next() throws(ToolError) -> [Line]? {
        var lines: [Line] = []
        while lines.count < size, let bytes = try reader.nextLine() {
            if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { continue }
            let number = reader.lineNumber
            lines.append(Line(number: number, value: try JSONReader.value(bytes, what: "line \(number)")))
        }
        return lines.isEmpty ? nil : lines
    }

    /// Applies every batch with `apply`, and returns how many lines were applied.
    /// - Throws: The first failure, as ``ToolError`` naming the batch's lines and what was stored before it.
    func applyAll(
        progress: Progress, verb: String, _ apply: ([Line]) async throws -> Void
    ) async throws -> Int {
        var applied = 0
        while let batch = try next() {
            do {
                try await apply(batch)
            } catch {
                let failure = ToolError(error)
                let (first, last) = (batch.first!.number, batch.last!.number)
                let span = first == last ? "line \(first)" : "lines \(first)–\(last)"
                throw ToolError(
                    failure.exitCode,
                    "\(failure.message). Stopped: nothing of \(span) is \(verb) (one change set); the "
                        + "\(grouped(applied)) line\(applied == 1 ? "" : "s") before \(first == last ? "it" : "them") "
                        + "\(applied == 1 ? "was" : "were") \(verb)")
            }
            applied += batch.count
            progress.update(
                completed: applied, fraction: reader.totalBytes.map { Double(reader.bytesRead) / Double(max($0, 1)) })
        }
        progress.finish()
        return applied
    }

    /// The id a line names: the line itself (a string or an integer), or the id field of an object.
    /// - Throws: ``ToolError`` `.badInput` naming the line.
    static func id(of line: Line, idField: String) throws(ToolError) -> Value {
        switch line.value {
        case .string, .int: return line.value
        case .object(let document):
            guard let id = document[idField], id != .null else {
                throw ToolError(.badInput, "line \(line.number) has no id field \"\(idField)\"")
            }
            return id
        default:
            throw ToolError(
                .badInput,
                "line \(line.number) is \(line.value.typeName) \(line.value); give an id (\"abc\" or 42) or an object")
        }
    }
}
