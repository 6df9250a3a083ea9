import DataStoreCore
import DataStoreKit
import DataStorePostgres

/// `datastore check DIR [COLLECTION]`: verifies records and index entries.
enum CheckCommand: Command {
    static let spec = CommandSpec(
        words: ["check"],
        summary: "Verify that every record decodes and every index entry matches its record, and the reverse.",
        positionals: [
            .directory,
            .init(name: "COLLECTION", help: "Check only this collection (default: all).", optional: true)
        ],
        options: CommandSpec.formatOptions,
        discussion: """
            Each problem is printed, naming the collection, the index and the record or entry.
            The exit code is 1 when there is a problem, 0 when there is none.

            On a postgresql:// URL every row's index keys are recomputed and compared, its
            record decoded, and its jsonb rendering compared with the record.

            examples:
              datastore check store || echo "the store needs repair"
              datastore check postgresql://app@db/app Message
            """)

    static func run(_ arguments: ParsedArguments, console: Console) async throws -> ExitCode {
        let format = try OutputFormat.choose(arguments, outputIsTerminal: console.output.isTerminal)
        let location = arguments.required("DIR")
        // Damage to the pages opening a store reads would make LMDB fail or crash there: found
        // first, from the file. (A directory that cannot be opened at all is reported below.)
        let (problems, checked): ([IntegrityProblem], [String])
        if let damage = StoreAccess.damageBeforeOpening(location) {
            (problems, checked) = (damage, [])
        } else {
            let store = try await StoreAccess.open(location, readOnly: true)
            defer { store.close() }
            if let name = arguments.positionals["COLLECTION"] {
                (problems, checked) = (try await StoreAccess.collection(name, in: store).check(), [name])
            } else {
                (problems, checked) = (try store.check(), try store.collectionNames())
            }
        }
        switch format {
        case .json:
            let listed: [Value] = problems.map { problem in
                .object([
                    "collection": .string(problem.collection), "index": problem.index.map(Value.string) ?? .null,
                    "message": .string(problem.message)
                ])
            }
            console.print(
                try JSONWriter.text([
                    "collections": .array(checked.map(Value.string)), "problems": .array(listed),
                    "ok": .bool(problems.isEmpty)
                ]))
        case .table where problems.isEmpty:
            console.print("no problems in \(checked.count) collection\(checked.count == 1 ? "" : "s")")
        case .table:
            var table = Table(["collection", "index", "problem"])
            table.maxCellWidth = 100
            for problem in problems { table.append([problem.collection, problem.index ?? "", problem.message]) }
            for line in table.lines { console.print(line) }
            console.print("\(problems.count) problem\(problems.count == 1 ? "" : "s") found")
        }
        return problems.isEmpty ? .success : .problemsFound
    }
}
