// The `datastore` command-line tool: see docs/cli.md, or run `datastore --help`.
import Glibc

switch RawArguments.decoded() {
case .success(let arguments):
    let code = await Tool.run(arguments, console: Console())
    exit(code.rawValue)
case .failure(let invalid):
    let console = Console()
    console.note(invalid.message)
    console.flush()
    exit(ExitCode.badInput.rawValue)
}
