import DataStoreCore
import DataStoreKit

/// `datastore query DIR COLLECTION [PARAMS]`: the documents matching the seed's parameters.
enum QueryCommand: Command {
    static let spec = CommandSpec(
        words: ["query"],
        summary: "Print the documents matching query parameters (docs/queries.md), or the plan.",
        positionals: [
            .directory, .collection,
            .init(
                name: "PARAMS",
                help: "A JSON object of conditions, such as '{\"created_ts >=\": 1437108600}' (default: {}).",
                optional: true)
        ],
        options: [
            .value("limit", "N", "Return at most N documents."),
            .value("offset", "N", "Skip the first N matching documents."),
            .value("sort", "KEYS", "Sort by fields, comma-separated, '-' for descending (-created_ts,name), or JSON."),
            .flag("explain", "Print how the store would answer, without running the query."),
            .flag(
                "count", "Print only the number of matching documents (all of them: --limit and --offset do not apply)."
            )
        ] + CommandSpec.formatOptions,
        discussion: """
            examples:
              datastore query store Message '{"created_ts >=": 1437108600}' --sort -created_ts --limit 10
              datastore query store Message '{"from_user_key": "12", "status in": ["sent", "read"]}'
              datastore query store Message '{"created_ts >=": 1437108600}' --explain
            """)

    static func run(_ arguments: ParsedArguments, console: Console) async throws -> ExitCode {
        let format = try OutputFormat.choose(arguments, outputIsTerminal: console.output.isTerminal)
        if arguments.flag("explain") && arguments.flag("count") {
            throw ToolError(.usage, "--explain and --count cannot be given together")
        }
        let params = try InputArguments.parameters(arguments.positionals["PARAMS"])
        var options: [String: Value] = [:]
        if let limit = try arguments.count("limit") { options["limit"] = .int(Int64(limit)) }
        if let offset = try arguments.count("offset") { options["offset"] = .int(Int64(offset)) }
        if let sort = arguments.values["sort"] { options["sort"] = try InputArguments.sort(sort) }

        let store = try await StoreAccess.openAny(arguments.required("DIR"), readOnly: true)
        let collection = try await StoreAccess.collection(arguments.required("COLLECTION"), in: store)
        if arguments.flag("explain") {
            let plan = try collection.explain(params: params, options: options)
            switch format {
            case .json:
                console.print(
                    try JSONWriter.text(["collection": .string(collection.name), "plan": .string(plan.description)]))
            case .table: console.print(plan.description)
            }
            return .success
        }
        if arguments.flag("count") {
            // Every match, whatever --limit and --offset say, counted without loading documents.
            let count = try await collection.count(params: params)
            switch format {
            case .json: console.print(try JSONWriter.text(["count": .int(Int64(count))]))
            case .table: console.print(grouped(count))
            }
            return .success
        }
        let documents = try await collection.query(params: params, options: options)
        try DocumentPrinter(console: console, format: format, idField: collection.idField).print(documents)
        return .success
    }
}
