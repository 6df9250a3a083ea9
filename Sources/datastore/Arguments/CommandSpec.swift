/// What a command accepts: its positional arguments and options, with the text `--help` shows.
struct CommandSpec: Sendable {
    /// A positional argument, such as `DIR` or `COLLECTION`.
    struct Positional: Sendable {
        /// The name shown in usage lines and messages (`DIR`).
        var name: String
        /// One line of help.
        var help: String
        /// Whether the argument may be left out (it must then come after every required one).
        var optional = false
    }

    /// A long option: a flag (`--json`) or an option with a value (`--limit N`).
    struct Option: Sendable {
        /// The name without dashes (`limit`).
        var name: String
        /// The value's placeholder (`N`), or `nil` for a flag.
        var valueName: String?
        /// One line of help.
        var help: String

        /// A flag: present or not.
        static func flag(_ name: String, _ help: String) -> Option {
            Option(name: name, valueName: nil, help: help)
        }

        /// An option taking one value.
        static func value(_ name: String, _ valueName: String, _ help: String) -> Option {
            Option(name: name, valueName: valueName, help: help)
        }
    }

    /// The words that name the command (`["index", "add"]`).
    var words: [String]
    /// One line saying what it does.
    var summary: String
    var positionals: [Positional] = []
    var options: [Option] = []
    /// Paragraphs shown after the options by `--help`: details and examples.
    var discussion: String = ""

    /// The command's name as typed (`index add`).
    var name: String { words.joined(separator: " ") }

    /// The option called `name`, if the command has one.
    func option(named name: String) -> Option? {
        name == CommandSpec.helpOption.name ? CommandSpec.helpOption : options.first { $0.name == name }
    }

    /// `--help`, which every command accepts.
    static let helpOption = Option.flag("help", "Show this help and exit.")
    /// `--json` and `--table`, for commands that print results.
    static let formatOptions: [Option] = [
        .flag("json", "Print JSON (the default when standard output is not a terminal)."),
        .flag("table", "Print a readable table (the default on a terminal).")
    ]
}
