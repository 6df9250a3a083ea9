/// Parses one command's arguments against its ``CommandSpec``.
///
/// The rules, kept small on purpose:
/// - `--name value` and `--name=value` give an option its value; the value may start with `-`
///   (`--sort -created_ts`).
/// - `--flag` sets a flag; `--flag=x` is an error.
/// - `-h` is `--help`; `--help` anywhere (before `--`) asks for help, whatever else is wrong.
/// - `--` ends the options: every later argument is positional.
/// - `-` alone, and a negative number (`-5`), are positional; any other `-x` is an unknown option.
/// - Positional arguments fill the spec's in order; a missing required one, an extra one, an
///   unknown option and an option given twice are errors that name it.
enum ArgumentParser {
    /// What the command line asks for.
    enum Outcome: Equatable {
        /// Run the command with these arguments.
        case run(ParsedArguments)
        /// Print the command's help.
        case help
    }

    /// Parses `arguments` (the words after the command's name).
    /// - Throws: ``ToolError`` `.usage` naming the argument or option that is wrong.
    static func parse(_ arguments: [String], spec: CommandSpec) throws(ToolError) -> Outcome {
        let endOfOptions = arguments.firstIndex(of: "--") ?? arguments.endIndex
        if arguments[..<endOfOptions].contains(where: { $0 == "--help" || $0 == "-h" }) { return .help }

        var parsed = ParsedArguments()
        var words: [String] = []
        var position = arguments.startIndex
        while position < arguments.endIndex {
            let argument = arguments[position]
            position += 1
            if position - 1 == endOfOptions {
                words += arguments[position...]
                break
            }
            guard argument.hasPrefix("-"), argument != "-", Double(argument) == nil else {
                words.append(argument)
                continue
            }
            guard argument.hasPrefix("--") else {
                throw ToolError(.usage, "unknown option \(argument) for '\(spec.name)'\(seeHelp(spec))")
            }
            let body = argument.dropFirst(2)
            let name = String(body.prefix { $0 != "=" })
            let inline = body.firstIndex(of: "=").map { String(body[body.index(after: $0)...]) }
            guard let option = spec.option(named: name) else {
                let suggestion = Suggestion.note(for: name, among: spec.options.map(\.name)) { "--\($0)" }
                throw ToolError(.usage, "unknown option --\(name) for '\(spec.name)'\(suggestion)\(seeHelp(spec))")
            }
            if parsed.flags.contains(name) || parsed.values[name] != nil {
                throw ToolError(.usage, "option --\(name) is given twice")
            }
            guard let valueName = option.valueName else {
                if inline != nil { throw ToolError(.usage, "option --\(name) is a flag and takes no value") }
                parsed.flags.insert(name)
                continue
            }
            if let inline {
                parsed.values[name] = inline
            } else if position < arguments.endIndex && position != endOfOptions {
                parsed.values[name] = arguments[position]
                position += 1
            } else {
                throw ToolError(.usage, "option --\(name) needs a value (\(valueName))")
            }
        }
        try assign(words, to: &parsed, spec: spec)
        return .run(parsed)
    }

    /// Fills the spec's positional arguments from `words`, in order.
    private static func assign(_ words: [String], to parsed: inout ParsedArguments, spec: CommandSpec) throws(ToolError)
    {
        for (offset, positional) in spec.positionals.enumerated() {
            if offset < words.count {
                parsed.positionals[positional.name] = words[offset]
            } else if !positional.optional {
                throw ToolError(
                    .usage,
                    "'\(spec.name)' needs \(positional.name) (\(positional.help.lowercasedFirst))"
                        + seeHelp(spec))
            }
        }
        if words.count > spec.positionals.count {
            throw ToolError(
                .usage,
                "unexpected argument \"\(words[spec.positionals.count])\" for '\(spec.name)'"
                    + seeHelp(spec))
        }
    }

    private static func seeHelp(_ spec: CommandSpec) -> String {
        "; see 'datastore \(spec.name) --help'"
    }
}

extension String {
    /// The string with its first character lowercased and a final period removed, for use
    /// inside a sentence.
    var lowercasedFirst: String {
        var text = prefix(1).lowercased() + dropFirst()
        if text.hasSuffix(".") { text.removeLast() }
        return text
    }
}
