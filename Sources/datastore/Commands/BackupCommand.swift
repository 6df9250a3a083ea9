import DataStoreCore
import DataStoreKit
import Foundation

/// `datastore backup DIR DEST`: a consistent copy of a store, which may be in use.
enum BackupCommand: Command {
    static let spec = CommandSpec(
        words: ["backup"],
        summary: "Copy a store, consistently even while it is in use, into an empty directory.",
        positionals: [
            .directory,
            .init(name: "DEST", help: "The directory to copy into: created when missing, else it must be empty.")
        ],
        options: [
            .flag("compact", "Leave out free pages and renumber the copy (smaller, a little slower).")
        ] + CommandSpec.formatOptions,
        discussion: """
            The copy is one snapshot of the store: writers may go on meanwhile. DEST is itself
            a store directory that every command can open.

            examples:
              datastore backup store /backups/store-2026-11-30
              datastore backup --compact store /backups/store-compact
            """)

    static func run(_ arguments: ParsedArguments, console: Console) async throws -> ExitCode {
        let format = try OutputFormat.choose(arguments, outputIsTerminal: console.output.isTerminal)
        let destination = arguments.required("DEST")
        let compact = arguments.flag("compact")
        let store = try await StoreAccess.open(arguments.required("DIR"), readOnly: false)
        defer { store.close() }
        try prepare(destination)
        do { try store.backup(to: destination, compact: compact) } catch {
            // Nothing was copied: the directory made for the copy goes too.
            try? FileManager.default.removeItem(atPath: destination)
            throw error
        }
        let size = (try? FileManager.default.attributesOfItem(atPath: destination + "/data.mdb")[.size] as? Int) ?? 0
        switch format {
        case .json:
            console.print(
                try JSONWriter.text([
                    "source": .string(store.location), "destination": .string(destination),
                    "bytes": .int(Int64(size)), "compact": .bool(compact)
                ]))
        case .table:
            console.print(
                "backed up \(store.location) to \(destination) (\(byteSize(size))\(compact ? ", compacted" : ""))")
        }
        return .success
    }

    /// Creates `destination` when missing; refuses a file or a directory that is not empty.
    private static func prepare(_ destination: String) throws(ToolError) {
        let files = FileManager.default
        var isDirectory: ObjCBool = false
        do {
            if !files.fileExists(atPath: destination, isDirectory: &isDirectory) {
                try files.createDirectory(atPath: destination, withIntermediateDirectories: true)
                return
            }
            guard isDirectory.boolValue else {
                throw ToolError(.storage, "the backup destination \(destination) is a file, not a directory")
            }
            let contents = try files.contentsOfDirectory(atPath: destination)
            guard contents.isEmpty else {
                throw ToolError(
                    .storage,
                    "the backup destination \(destination) is not empty (it holds "
                        + "\(contents.sorted().prefix(3).joined(separator: ", "))\(contents.count > 3 ? ", …" : ""))")
            }
        } catch let error as ToolError {
            throw error
        } catch {
            throw ToolError(
                .storage, "cannot prepare the backup destination \(destination): \(error.localizedDescription)")
        }
    }
}
