/// One `datastore` command: what it accepts, and how it runs.
protocol Command {
    /// Its name, arguments, options and help.
    static var spec: CommandSpec { get }
    /// Runs the command with checked arguments and returns how the process should end.
    /// - Throws: ``ToolError``, or any error of the store (mapped by ``ToolError/init(_:)``).
    static func run(_ arguments: ParsedArguments, console: Console) async throws -> ExitCode
}

/// Every command, in the order the overview lists them.
var allCommands: [any Command.Type] {
    [
        StatsCommand.self,
        GetCommand.self, QueryCommand.self, CountCommand.self, AddCommand.self, PutCommand.self, RemoveCommand.self,
        ImportCommand.self, ExportCommand.self,
        CheckCommand.self,
        IndexListCommand.self, IndexAddCommand.self, IndexDropCommand.self,
        BackupCommand.self, CompactCommand.self,
        ChangesCommand.self
    ]
}

/// Arguments and options that several commands share.
extension CommandSpec.Positional {
    static let directory = CommandSpec.Positional(name: "DIR", help: "The store directory.")
    static let collection = CommandSpec.Positional(name: "COLLECTION", help: "The collection's name.")
    static let id = CommandSpec.Positional(
        name: "ID", help: "The document's id: 42 is an integer id, '\"42\"' (JSON) or abc a string id.")
}

extension CommandSpec.Option {
    static let idField = CommandSpec.Option.value(
        "id-field", "FIELD", "The id field of a collection this command creates (default: id).")
    static let create = CommandSpec.Option.flag(
        "create", "Create the store directory when it does not exist.")
}
