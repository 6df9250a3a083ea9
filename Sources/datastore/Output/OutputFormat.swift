/// How a command prints its results.
enum OutputFormat: Sendable, Equatable {
    /// Aligned columns for people.
    case table
    /// JSON for scripts: one object, or one object per line (JSON Lines) for documents.
    case json

    /// `--json` or `--table` when given, else a table on a terminal and JSON otherwise.
    /// - Throws: ``ToolError`` `.usage` when both flags are given.
    static func choose(_ arguments: ParsedArguments, outputIsTerminal: Bool) throws(ToolError) -> OutputFormat {
        switch (arguments.flag("json"), arguments.flag("table")) {
        case (true, true): throw ToolError(.usage, "--json and --table cannot be given together")
        case (true, false): return .json
        case (false, true): return .table
        case (false, false): return outputIsTerminal ? .table : .json
        }
    }
}
