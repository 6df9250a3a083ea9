// The `datastore` command-line tool: see docs/cli.md, or run `datastore --help`.
import Glibc

let code = await Tool.run(Array(CommandLine.arguments.dropFirst()), console: Console())
exit(code.rawValue)
