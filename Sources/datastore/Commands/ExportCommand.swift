import DataStoreCore
import DataStoreKit
import Glibc

/// `datastore export DIR COLLECTION [FILE]`: writes a collection as JSON Lines.
enum ExportCommand: Command {
    static let spec = CommandSpec(
        words: ["export"],
        summary: "Write every document of a collection as JSON Lines, in id order, streaming.",
        positionals: [
            .directory, .collection,
            .init(
                name: "FILE", help: "The file to write (replaced); standard output when left out or -.", optional: true)
        ],
        options: [
            .value("chunk", "N", "Read N documents per query (default: 5000).")
        ],
        discussion: """
            Documents are read in chunks of ids greater than the last one written, so memory does
            not grow with the collection. Each chunk is read from its own snapshot: export a
            backup (datastore backup) for a copy of a single moment of a store in use.
            Bytes are written as {"$base64": "…"}, doubles always with a "." or an exponent, so
            import reads back the same values.

            examples:
              datastore export store Message > messages.jsonl
              datastore export store Message messages.jsonl
            """)

    static func run(_ arguments: ParsedArguments, console: Console) async throws -> ExitCode {
        let chunk = try arguments.positive("chunk", default: 5_000)
        let path = arguments.positionals["FILE"] ?? "-"
        let store = try await StoreAccess.openAny(arguments.required("DIR"), readOnly: true)
        let collection = try await StoreAccess.collection(arguments.required("COLLECTION"), in: store)
        let output = try path == "-" ? console.output : openFile(path)
        let total = try collection.documentCount()
        let progress = Progress(stream: console.errors, label: "exporting", unit: "documents")
        var exported = 0
        try await forEachChunk(of: collection, size: chunk) { documents in
            var writer = JSONWriter()
            for document in documents {
                try writer.append(document)
                writer.bytes.append(UInt8(ascii: "\n"))
            }
            output.write(bytes: writer.bytes)
            exported += documents.count
            progress.update(completed: exported, fraction: Double(exported) / Double(max(total, 1)))
        }
        output.flush()
        progress.finish()
        if path != "-" {
            guard fsync(output.descriptor) == 0, close(output.descriptor) == 0 else {
                throw ToolError(.storage, "cannot write \(path): \(String(cString: strerror(errno)))")
            }
            console.print("exported \(grouped(exported)) documents from \(collection.name) to \(path)")
        }
        return .success
    }

    /// Calls `body` with successive chunks of at most `size` documents, in id order: each chunk
    /// is the query `id > last` (the last id of the previous chunk) with a limit. Ids are
    /// integers, then strings; a range stays within one type, so the strings are asked for
    /// separately once the integers run out.
    ///
    /// - Throws: ``ToolError`` `.storage` if a chunk comes back out of id order (which would
    ///   skip documents), rather than write an incomplete export.
    static func forEachChunk(
        of collection: any DocumentModel, size: Int, _ body: ([Document]) async throws -> Void
    ) async throws {
        let idField = collection.idField
        var last: Value?
        while true {
            let params: [String: Value] = last.map { ["\(idField) >": $0] } ?? [:]
            let documents = try await collection.query(params: params, options: ["limit": .int(Int64(size))])
            var previous = last
            for document in documents {
                guard let id = document[idField], previous.map({ Value.compare($0, id) < 0 }) ?? true else {
                    throw ToolError(
                        .storage,
                        "the store answered a chunk of \(collection.name) out of id order "
                            + "after id \(previous.map(\.description) ?? "(start)"); the export is incomplete")
                }
                previous = id
            }
            if !documents.isEmpty { try await body(documents) }
            if documents.count == size {
                last = previous
            } else if case .int? = last {
                last = .string("") // the integers are done: on to the strings
            } else {
                return
            }
        }
    }

    private static func openFile(_ path: String) throws(ToolError) -> OutputStream {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw ToolError(
                errno == ENOENT ? .notFound : .storage, "cannot create \(path): \(String(cString: strerror(errno)))")
        }
        return OutputStream(descriptor: descriptor)
    }
}
