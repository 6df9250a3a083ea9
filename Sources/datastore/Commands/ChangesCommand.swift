import DataStoreCore
import DataStoreKit
import DataStorePostgres
import Foundation

/// `datastore changes DIR [--after COMMIT] [--collection C] [--follow]`: the change feed as JSON Lines.
enum ChangesCommand: Command {
    static let spec = CommandSpec(
        words: ["changes"],
        summary: "Print the store's recorded commits as JSON Lines, oldest first; --follow waits for new ones.",
        positionals: [.directory],
        options: [
            .value(
                "after", "COMMIT",
                "Start after this commit (the last one a consumer handled); default: the oldest kept."),
            .value("collection", "C", "Only commits that changed collection C, and only its changes."),
            .flag("follow", "Keep running and print each new commit, of any process, as it is made."),
            .flag("json", "Print JSON Lines: this command's only format, so the flag changes nothing.")
        ],
        discussion: """
            Each line is one commit: {"changes":[{"collection","inserted","updated","removed"}],"commit","time"}.
            A commit's number is what --after takes to resume after it.

            examples:
              datastore changes /var/lib/myapp/store
              datastore changes store --after 1234 --collection Message --follow
              datastore changes postgresql://app@db/app --follow
            """)

    static func run(_ arguments: ParsedArguments, console: Console) async throws -> ExitCode {
        let store = try await StoreAccess.open(arguments.required("DIR"), readOnly: true)
        defer { store.close() }
        let after = try arguments.count("after").map { CommitID(rawValue: $0) }
        let collection = arguments.values["collection"]
        if let collection {
            let names = try store.collectionNames()
            guard names.contains(collection) else {
                throw ToolError(
                    .notFound,
                    "no collection \(collection) in the store at \(store.location)"
                        + Suggestion.note(for: collection, among: names) { $0 })
            }
        }
        let feed = try store.changes(after: after)
        let follow = arguments.flag("follow")
        for try await event in follow ? feed : feed.recordedSoFar {
            let changes = event.changes.filter { collection == nil || $0.collection == collection }
            if changes.isEmpty { continue }
            console.print(try JSONWriter.text(document(event, changes)))
            if follow { console.flush() }
        }
        return .success
    }

    /// `{"commit": 12, "time": "2026-12-01T13:00:00.123Z", "changes": [{…}]}` (UTC).
    static func document(_ event: CommitEvent, _ changes: [CollectionChanges]) -> Document {
        let time = Date.ISO8601FormatStyle(includingFractionalSeconds: true).format(event.time)
        return [
            "commit": .int(Int64(event.commit.rawValue)),
            "time": .string(time),
            "changes": .array(
                changes.map { change in
                    .object([
                        "collection": .string(change.collection), "inserted": .array(change.inserted),
                        "updated": .array(change.updated), "removed": .array(change.removed)
                    ])
                })
        ]
    }
}
