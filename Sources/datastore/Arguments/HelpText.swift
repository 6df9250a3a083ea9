/// The text `--help` prints for a command.
extension CommandSpec {
    /// `usage: datastore query DIR COLLECTION [PARAMS] [options]`, the arguments, the options and
    /// the discussion.
    var helpText: String {
        var lines: [String] = []
        var usage = "usage: datastore \(name)"
        for positional in positionals {
            usage += positional.optional ? " [\(positional.name)]" : " \(positional.name)"
        }
        if !options.isEmpty { usage += " [options]" }
        lines.append(usage)
        lines.append("")
        lines.append(summary)
        if !positionals.isEmpty {
            lines.append("")
            lines.append("arguments:")
            lines += CommandSpec.columns(positionals.map { ($0.name, $0.help) })
        }
        lines.append("")
        lines.append("options:")
        let shown = options + [CommandSpec.helpOption]
        lines += CommandSpec.columns(
            shown.map { option in
                ("--\(option.name)" + (option.valueName.map { " \($0)" } ?? ""), option.help)
            })
        if !discussion.isEmpty {
            lines.append("")
            lines.append(discussion)
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Two aligned columns, indented by two spaces.
    static func columns(_ rows: [(String, String)]) -> [String] {
        let width = rows.map(\.0.count).max() ?? 0
        return rows.map { left, right in
            "  " + left + String(repeating: " ", count: width - left.count + 2) + right
        }
    }
}
