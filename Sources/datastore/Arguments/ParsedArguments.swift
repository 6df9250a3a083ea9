/// The arguments of one command line, checked against its ``CommandSpec``.
struct ParsedArguments: Sendable, Equatable {
    /// The positional arguments given, by name.
    var positionals: [String: String] = [:]
    /// The options given with a value, by name.
    var values: [String: String] = [:]
    /// The flags given.
    var flags: Set<String> = []

    /// The positional argument `name`, which the parser made sure is present.
    func required(_ name: String) -> String {
        guard let value = positionals[name] else { preconditionFailure("required argument \(name) was not checked") }
        return value
    }

    /// Whether the flag `name` was given.
    func flag(_ name: String) -> Bool { flags.contains(name) }

    /// The value of option `name` as a non-negative integer, or `nil` when not given.
    /// - Throws: ``ToolError`` `.usage` naming the option and the text when it is not one.
    func count(_ name: String) throws(ToolError) -> Int? {
        guard let text = values[name] else { return nil }
        guard let number = Int(text), number >= 0 else {
            throw ToolError(.usage, "option --\(name) needs a non-negative integer, not \"\(text)\"")
        }
        return number
    }

    /// The value of option `name` as a positive integer, or `fallback` when not given.
    func positive(_ name: String, default fallback: Int) throws(ToolError) -> Int {
        guard let number = try count(name) else { return fallback }
        guard number > 0 else { throw ToolError(.usage, "option --\(name) needs a positive integer, not 0") }
        return number
    }
}
