import DataStoreCore

/// An error that ends a command: the message printed on standard error and the exit code.
struct ToolError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The exit code it ends with.
    var exitCode: ExitCode
    /// A sentence naming what was wrong.
    var message: String

    init(_ exitCode: ExitCode, _ message: String) {
        self.exitCode = exitCode
        self.message = message
    }

    var description: String { message }

    /// The tool's error for any error a command throws: a ``DataStoreError`` keeps its message
    /// and gets the exit code of its kind; anything else is a storage error.
    init(_ error: any Error) {
        switch error {
        case let error as ToolError:
            self = error
        case let error as DataStoreError:
            self.init(ToolError.exitCode(for: error.code), ToolError.message(of: error))
        default:
            self.init(.storage, "\(error)")
        }
    }

    static func exitCode(for code: DataStoreError.Code) -> ExitCode {
        switch code {
        case .notFound: .notFound
        case .storage, .unsupportedFormat, .closed, .network, .httpStatus, .badResponse, .timedOut, .outcomeUnknown:
            .storage
        default: .badInput
        }
    }

    /// The error's message with the underlying cause, when that adds something.
    static func message(of error: DataStoreError) -> String {
        error.underlyingNote.map { "\(error.message) (\($0))" } ?? error.message
    }
}
