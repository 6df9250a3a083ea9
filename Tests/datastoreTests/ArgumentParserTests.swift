@testable import datastore
import Testing

@Suite("ArgumentParser")
struct ArgumentParserTests {
    static let spec = CommandSpec(
        words: ["query"],
        summary: "Test command.",
        positionals: [.directory, .collection, .init(name: "PARAMS", help: "Params.", optional: true)],
        options: [.value("limit", "N", "Limit."), .value("sort", "KEYS", "Sort."), .flag("explain", "Explain.")]
            + CommandSpec.formatOptions)

    func parse(_ arguments: String...) throws(ToolError) -> ParsedArguments {
        switch try ArgumentParser.parse(arguments, spec: Self.spec) {
        case .run(let parsed): return parsed
        case .help: throw ToolError(.usage, "help")
        }
    }

    func failure(_ arguments: String...) -> String? {
        do {
            _ = try ArgumentParser.parse(arguments, spec: Self.spec)
            return nil
        } catch {
            #expect(error.exitCode == .usage)
            return error.message
        }
    }

    @Test func positionalsOptionsAndFlags() throws {
        let parsed = try parse("dir", "--limit", "10", "Message", "--explain", "{}", "--json")
        #expect(parsed.positionals == ["DIR": "dir", "COLLECTION": "Message", "PARAMS": "{}"])
        #expect(parsed.values == ["limit": "10"])
        #expect(parsed.flags == ["explain", "json"])
        #expect(try parsed.count("limit") == 10)
    }

    @Test func optionalPositionalMayBeLeftOut() throws {
        let parsed = try parse("dir", "Message")
        #expect(parsed.positionals["PARAMS"] == nil)
        #expect(parsed.flags.isEmpty)
    }

    @Test func inlineValueAndValueStartingWithDash() throws {
        #expect(try parse("d", "c", "--limit=5").values["limit"] == "5")
        #expect(try parse("d", "c", "--sort", "-created_ts").values["sort"] == "-created_ts")
        #expect(try parse("d", "c", "--sort=-a,b").values["sort"] == "-a,b")
        #expect(try parse("d", "c", "--sort=").values["sort"] == "")
    }

    @Test func dashAloneNegativeNumbersAndDoubleDashArePositional() throws {
        #expect(try parse("d", "c", "-").positionals["PARAMS"] == "-")
        #expect(try parse("d", "c", "-5").positionals["PARAMS"] == "-5")
        let parsed = try parse("d", "--", "--explain", "--json")
        #expect(parsed.positionals == ["DIR": "d", "COLLECTION": "--explain", "PARAMS": "--json"])
        #expect(parsed.flags.isEmpty)
    }

    @Test func helpWinsOverEverythingElse() throws {
        #expect(try ArgumentParser.parse(["--nonsense", "--help"], spec: Self.spec) == .help)
        #expect(try ArgumentParser.parse(["-h"], spec: Self.spec) == .help)
        #expect(try ArgumentParser.parse(["d", "c", "--", "--help"], spec: Self.spec) != .help)
    }

    @Test func errorsNameTheArgument() {
        #expect(
            failure("d", "c", "--lmit", "3") == "unknown option --lmit for 'query' (did you mean --limit?); "
                + "see 'datastore query --help'")
        #expect(
            failure("d", "c", "--nonsense") == "unknown option --nonsense for 'query'; see 'datastore query --help'")
        #expect(failure("d", "c", "-x") == "unknown option -x for 'query'; see 'datastore query --help'")
        #expect(failure("d", "c", "--limit") == "option --limit needs a value (N)")
        #expect(failure("d", "c", "--limit", "1", "--limit=2") == "option --limit is given twice")
        #expect(failure("d", "c", "--explain=yes") == "option --explain is a flag and takes no value")
        #expect(failure("d") == "'query' needs COLLECTION (the collection's name); see 'datastore query --help'")
        #expect(
            failure("d", "c", "{}", "extra")
                == "unexpected argument \"extra\" for 'query'; see 'datastore query --help'")
    }

    @Test func numbersAreChecked() throws {
        for text in ["-1", "ten", "1.5", ""] {
            let parsed = ParsedArguments(values: ["limit": text])
            #expect(throws: ToolError(.usage, "option --limit needs a non-negative integer, not \"\(text)\"")) {
                try parsed.count("limit")
            }
        }
        #expect(throws: ToolError(.usage, "option --chunk needs a positive integer, not 0")) {
            try ParsedArguments(values: ["chunk": "0"]).positive("chunk", default: 5)
        }
        #expect(try ParsedArguments().positive("chunk", default: 5) == 5)
    }

    @Test func outputFormat() throws {
        #expect(try OutputFormat.choose(ParsedArguments(), outputIsTerminal: true) == .table)
        #expect(try OutputFormat.choose(ParsedArguments(), outputIsTerminal: false) == .json)
        #expect(try OutputFormat.choose(ParsedArguments(flags: ["table"]), outputIsTerminal: false) == .table)
        #expect(try OutputFormat.choose(ParsedArguments(flags: ["json"]), outputIsTerminal: true) == .json)
        #expect(throws: ToolError.self) {
            try OutputFormat.choose(ParsedArguments(flags: ["json", "table"]), outputIsTerminal: true)
        }
    }

    @Test func helpTextListsArgumentsAndOptions() {
        let text = Self.spec.helpText
        #expect(text.hasPrefix("usage: datastore query DIR COLLECTION [PARAMS] [options]\n"))
        #expect(text.contains("  --limit N"))
        #expect(text.contains("  --help"))
    }

    @Test func commandsAreFoundByTheirWords() throws {
        let (command, rest) = try Tool.find(["index", "add", "d", "c", "n"])
        let name = command.spec.name
        #expect(name == "index add")
        #expect(rest == ["d", "c", "n"])
        let (stats, _) = try Tool.find(["stats", "d"])
        let statsName = stats.spec.name
        #expect(statsName == "stats")
        for words in [["index"], ["index", "rebuild"], ["stat"]] {
            do {
                _ = try Tool.find(words)
                Issue.record("\(words) found a command")
            } catch {
                #expect(error.exitCode == .usage)
            }
        }
        var names: [String] = []
        for command in allCommands { names.append(command.spec.name) }
        #expect(Set(names).count == names.count)
    }
}
