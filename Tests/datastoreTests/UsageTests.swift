@testable import datastore
import Foundation
import Testing

@Suite("usage and help")
struct UsageTests {
    @Test func everyCommandHasHelp() async throws {
        let sandbox = try ToolSandbox()
        for command in allCommands {
            let words = command.spec.words
            let name = command.spec.name
            let run = try await sandbox.run(words + ["--help"])
            #expect(run.status == 0, "\(name): \(run)")
            #expect(run.output.hasPrefix("usage: datastore \(name) "), "\(name)")
            #expect(run.output.contains("  --help"))
            let viaHelp = try await sandbox.run(["help"] + words)
            #expect(viaHelp.output == run.output)
        }
    }

    @Test func theOverview() async throws {
        let sandbox = try ToolSandbox()
        let help = try await sandbox.run("--help")
        #expect(help.status == 0)
        #expect(help.output.hasPrefix("usage: datastore COMMAND [arguments] [options]\n"))
        #expect(help.output.contains("  index add   Add a secondary index"))
        #expect(help.output.contains("  4  bad input:"))
        let nothing = try await sandbox.run([])
        #expect(nothing.status == 2)
        #expect(nothing.output.isEmpty)
        #expect(nothing.errors == help.output)
    }

    @Test("docs/cli.md shows the tool's own overview and version, word for word")
    func theDocsShowTheHelp() async throws {
        let sandbox = try ToolSandbox()
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let docs = try String(contentsOf: root.appendingPathComponent("docs/cli.md"), encoding: .utf8)
        let help = try await sandbox.run("--help")
        #expect(docs.contains("```\n" + help.output + "```\n"), "docs/cli.md's overview is not the tool's --help")
        let version = try await sandbox.run("--version")
        #expect(docs.contains("`" + version.output.trimmingCharacters(in: .newlines) + "`"))
    }

    @Test func usageErrorsExitWithTwo() async throws {
        let sandbox = try ToolSandbox()
        let cases: [([String], String)] = [
            (
                ["stat", "d"],
                "datastore: unknown command 'stat' (did you mean 'stats'?); the commands are stats, get, query, "
                    + "count, add, put, remove, import, "
                    + "export, check, index, backup, compact, changes (see 'datastore --help')\n"
            ),
            (
                ["index"],
                "datastore: 'index' needs a subcommand: list, add, drop (see 'datastore index SUBCOMMAND --help')\n"
            ),
            (
                ["index", "build", "d"],
                "datastore: unknown subcommand 'index build': list, add, drop "
                    + "(see 'datastore index SUBCOMMAND --help')\n"
            ),
            (
                ["index", "lsit", "d"],
                "datastore: unknown subcommand 'index lsit' (did you mean 'index list'?): list, add, "
                    + "drop (see 'datastore index SUBCOMMAND --help')\n"
            ),
            (
                ["get", "d", "c"],
                "datastore: 'get' needs ID (the document's id: 42 is an integer id, '\"42\"' (JSON) or abc a "
                    + "string id); see 'datastore get --help'\n"
            ),
            (
                ["stats", "d", "extra"],
                "datastore: unexpected argument \"extra\" for 'stats'; see 'datastore stats --help'\n"
            ),
            (
                ["stats", "d", "--verbose"],
                "datastore: unknown option --verbose for 'stats'; see 'datastore stats --help'\n"
            ),
            (["stats", "d", "--json", "--table"], "datastore: --json and --table cannot be given together\n"),
            (["export", "d", "c", "--chunk", "0"], "datastore: option --chunk needs a positive integer, not 0\n"),
            (
                ["help", "nope"],
                "datastore: unknown command 'nope'; the commands are stats, get, query, count, add, put, remove, "
                    + "import, export, check, index, backup, compact, changes (see 'datastore --help')\n"
            )
        ]
        for (arguments, message) in cases {
            let run = try await sandbox.run(arguments)
            #expect(run.status == 2, "\(arguments): \(run)")
            #expect(run.errors == message, "\(arguments)")
            #expect(run.output.isEmpty)
        }
    }
}
