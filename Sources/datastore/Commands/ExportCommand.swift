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
        let store = try await StoreAccess.open(arguments.required("DIR"), readOnly: true)
        let collection = try await StoreAccess.collection(arguments.required("COLLECTION"), in: store)
        let output = try path == "-" ? console.output : openFile(path)
        let total = try await collection.count(params: nil)
        let progress = Progress(stream: console.errors, label: "exporting", unit: "documents")
        var exported = 0
        try await collection.forEachChunk(size: chunk) { documents in
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

    private static func openFile(_ path: String) throws(ToolError) -> OutputStream {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw ToolError(
                errno == ENOENT ? .notFound : .storage, "cannot create \(path): \(String(cString: strerror(errno)))")
        }
        return OutputStream(descriptor: descriptor)
    }
}
