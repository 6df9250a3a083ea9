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
            Documents are streamed in id order a chunk at a time, each chunk resuming after the last
            id written, so memory does not grow with the collection. Each chunk is read from its own
            snapshot: export a
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
        let store = try StoreAccess.open(arguments.required("DIR"), readOnly: true)
        let collection = try await StoreAccess.collection(arguments.required("COLLECTION"), in: store)
        let output = try path == "-" ? console.output : openFile(path)
        let total = try collection.count()
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

    /// Calls `body` with successive chunks of at most `size` documents, in id order: the pages of
    /// a stream sorted by id, each read from its own snapshot and resumed after the last id.
    static func forEachChunk(
        of collection: StoreCollection<Document>, size: Int, _ body: ([Document]) async throws -> Void
    ) async throws {
        var chunk: [Document] = []
        chunk.reserveCapacity(size)
        let stream = try collection.stream(
            params: nil, options: ["sort": .string(collection.mapping.idField)], pageSize: size)
        for try await document in stream {
            chunk.append(document)
            if chunk.count == size {
                try await body(chunk)
                chunk.removeAll(keepingCapacity: true)
            }
        }
        if !chunk.isEmpty { try await body(chunk) }
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
