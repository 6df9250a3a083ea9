import DataStoreKit
import DataStoreCore

/// The `datastore` command line: finds the command, parses its arguments, runs it, and turns
/// every error into a message on standard error and an exit code.
enum Tool {
    /// Runs the command line `arguments` (without the program name).
    static func run(_ arguments: [String], console: Console) async -> ExitCode {
        defer { console.flush() }
        guard let first = arguments.first, first != "--help", first != "-h" else {
            if arguments.isEmpty {
                console.errors.write(overview)
                return .usage
            }
            console.output.write(overview)
            return .success
        }
        if first == "help" {
            return help(Array(arguments.dropFirst()), console: console)
        }
        if first == "--version" {
            console.print(versionText)
            return .success
        }
        do {
            let (command, rest) = try find(arguments)
            switch try ArgumentParser.parse(rest, spec: command.spec) {
            case .help:
                console.output.write(command.spec.helpText)
                return .success
            case .run(let parsed):
                return try await command.run(parsed, console: console)
            }
        } catch {
            let failure = ToolError(error)
            console.output.flush()
            console.note(failure.message)
            return failure.exitCode
        }
    }

    /// The command named by the first words of `arguments`, and the words after its name.
    static func find(_ arguments: [String]) throws(ToolError) -> (any Command.Type, [String]) {
        let first = arguments.first ?? ""
        let family = allCommands.filter { $0.spec.words.first == first }
        guard !family.isEmpty else {
            let suggestion = Suggestion.note(for: first, among: commandNames) { "'\($0)'" }
            throw ToolError(
                .usage,
                "unknown command '\(first)'\(suggestion); the commands are "
                    + commandNames.joined(separator: ", ") + " (see 'datastore --help')")
        }
        if let command = family.first(where: { $0.spec.words.count == 1 }) {
            return (command, Array(arguments.dropFirst()))
        }
        let subcommands = family.map { $0.spec.words[1] }
        guard arguments.count > 1, let command = family.first(where: { $0.spec.words[1] == arguments[1] }) else {
            let given =
                arguments.count > 1
                ? "unknown subcommand '\(first) \(arguments[1])'"
                    + Suggestion.note(for: arguments[1], among: subcommands) { "'\(first) \($0)'" }
                : "'\(first)' needs a subcommand"
            throw ToolError(
                .usage, "\(given): \(subcommands.joined(separator: ", ")) (see 'datastore \(first) SUBCOMMAND --help')")
        }
        return (command, Array(arguments.dropFirst(2)))
    }

    /// `datastore help [COMMAND…]`.
    private static func help(_ words: [String], console: Console) -> ExitCode {
        if words.isEmpty {
            console.output.write(overview)
            return .success
        }
        do {
            let (command, _) = try find(words)
            console.output.write(command.spec.helpText)
            return .success
        } catch {
            console.note(error.message)
            return error.exitCode
        }
    }

    /// The tool's version, and the version of the record format it reads and writes.
    static let version = "0.1.0"

    /// What `datastore --version` prints.
    static var versionText: String {
        "datastore \(version) (DataStoreKit store format \(DataStore.formatVersions.store), record format \(DataStore.formatVersions.record))"
    }

    private static var commandNames: [String] {
        var names: [String] = []
        for command in allCommands where !names.contains(command.spec.words[0]) { names.append(command.spec.words[0]) }
        return names
    }

    /// What `datastore --help` prints.
    static var overview: String {
        var lines = [
            "usage: datastore COMMAND [arguments] [options]",
            "",
            "Look inside a DataStoreKit store (a directory, or a postgresql:// URL) and work with it from a shell.",
            "",
            "commands:"
        ]
        lines += CommandSpec.columns(allCommands.map { ($0.spec.name, $0.spec.summary) })
        lines += [
            "",
            "Every command takes --help. Results are tables on a terminal and JSON otherwise",
            "(--json and --table choose). Errors go to standard error. datastore --version",
            "prints the version.",
            "",
            "exit codes:"
        ]
        lines += CommandSpec.columns(ExitCode.allCases.map { ("\($0.rawValue)", $0.meaning) })
        lines += ["", "Documentation: docs/cli.md"]
        return lines.joined(separator: "\n") + "\n"
    }
}

extension ExitCode {
    /// One line for the overview.
    var meaning: String {
        switch self {
        case .success: "success"
        case .problemsFound: "check found problems"
        case .usage: "usage error: unknown command or option, missing or extra argument"
        case .notFound: "not found: store directory, collection, id, index or input file"
        case .badInput: "bad input: malformed JSON, bad import line, invalid query or id, duplicate id"
        case .storage: "storage error: cannot open, read or write the store or a file"
        }
    }
}
