/// How `datastore` ends, for scripts (docs/cli.md, "Exit codes").
enum ExitCode: Int32, Sendable, CaseIterable {
    /// The command did what was asked.
    case success = 0
    /// `check` found problems (each is printed).
    case problemsFound = 1
    /// The command line is wrong: unknown command or option, missing or extra argument, bad number.
    case usage = 2
    /// Something named does not exist: the store directory, a collection, an id, an index.
    case notFound = 3
    /// The input was refused: malformed JSON, a bad import line, an invalid query or id, a
    /// duplicate id, a unique index violation.
    case badInput = 4
    /// The store or a file could not be read or written: not a store, permission, disk full,
    /// a newer format, a backup destination that is not empty.
    case storage = 5
}
