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
            .value(
                "page", "N", "Print one page of N documents (keyset pagination); the next page's token goes to stderr."),
            .value("after", "TOKEN", "With --page: start after the page that printed TOKEN."),
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

        let store = try await StoreAccess.open(arguments.required("DIR"), readOnly: true)
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
            try CountCommand.print(try await collection.count(params: params), format: format, console: console)
            return .success
        }
        let printer = DocumentPrinter(console: console, format: format, idField: collection.mapping.idField)
        if let size = try arguments.count("page") {
            return try await printPage(collection, size: size, params: params, options: options, arguments, printer)
        }
        if format == .json, let stream = try streamIfServed(collection, params: params, options: options) {
            // JSON Lines need no column widths: print a page at a time, in the memory of one page.
            for try await document in stream { try printer.printJSON(document) }
            return .success
        }
        if arguments.values["after"] != nil { throw ToolError(.usage, "--after needs --page N") }
        try printer.print(try await collection.query(params: params, options: options))
        return .success
    }

    /// Prints one keyset page, and the token of the next one on standard error.
    private static func printPage(
        _ collection: any DocumentCollection<Document>, size: Int, params: [String: Value], options: [String: Value],
        _ arguments: ParsedArguments, _ printer: DocumentPrinter
    ) async throws -> ExitCode {
        let token = try arguments.values["after"].map { text throws(DataStoreError) in try PageToken(text) }
        let page = try await collection.page(params: params, options: options, size: size, after: token)
        try printer.print(page.objects)
        if let next = page.next {
            printer.console.note("more results: --after \(next)")
        }
        return .success
    }

    /// The results as a stream of pages, or `nil` when the sort is one no index serves (the store
    /// then sorts every match in memory).
    private static func streamIfServed(
        _ collection: any DocumentCollection<Document>, params: [String: Value], options: [String: Value]
    ) throws -> (any AsyncSequence<Document, any Error>)? {
        do {
            return try collection.stream(params: params, options: options, pageSize: 1_000)
        } catch let error as DataStoreError where error.code == .invalidOption && options["sort"] != nil {
            return nil
        }
    }
}
