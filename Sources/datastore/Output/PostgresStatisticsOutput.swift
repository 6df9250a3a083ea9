import DataStoreCore
import DataStoreKit
import DataStorePostgres

// A PostgreSQL store's statistics as documents (`stats --json`) and tables.

extension PostgresStatistics.Index {
    /// The declaration with its `declared`, `entries` and `bytes`.
    var document: Document {
        var document = definition.document
        document["state"] = "ready"
        document["declared"] = .bool(declared)
        document["entries"] = .int(Int64(entries))
        document["bytes"] = .int(Int64(bytes))
        return document
    }

    /// As LMDB's: the state, and `, not declared` for an index the declaration left out.
    var stateText: String { declared ? "ready" : "ready, not declared" }
}

extension PostgresStatistics {
    /// Everything, for `stats --json` on a URL.
    func document(url: String) -> Document {
        [
            "url": .string(url),
            "serverVersion": .string(serverVersion),
            "database": .string(database),
            "lastCommit": .int(Int64(lastCommit)),
            "retainedCommits": .int(Int64(retainedCommits)),
            "collections": .array(
                collections.map { collection in
                    .object([
                        "name": .string(collection.name), "idField": .string(collection.idField),
                        "table": .string(collection.table), "documents": .int(Int64(collection.documents)),
                        "bytes": .int(Int64(collection.bytes)),
                        "indexes": .array(collection.indexes.map { .object($0.document) })
                    ])
                })
        ]
    }

    /// The summary, collection and index tables `stats` prints for a URL.
    func lines(url: String) -> [String] {
        let summary = [
            ("store", url), ("server", "PostgreSQL \(serverVersion), database \(database)"),
            ("last commit", "transaction \(lastCommit)"), ("change feed", "\(grouped(retainedCommits)) commits kept")
        ]
        var lines = CommandSpec.columns(summary).map { String($0.dropFirst(2)) } + [""]
        guard !collections.isEmpty else { return lines + ["no collections"] }
        var tables = Table(["collection", "id field", "table", "documents", "size", "indexes"], rightAligned: [3, 4, 5])
        var indexes = Table(
            ["collection", "index", "fields", "options", "state", "entries", "size"], rightAligned: [5, 6])
        for collection in collections {
            tables.append([
                collection.name, collection.idField, collection.table, grouped(collection.documents),
                byteSize(collection.bytes), "\(collection.indexes.count)"
            ])
            for index in collection.indexes {
                indexes.append([
                    collection.name, index.definition.name, index.definition.fieldList, index.definition.traits,
                    index.stateText, grouped(index.entries), byteSize(index.bytes)
                ])
            }
        }
        lines += tables.lines
        if !indexes.rows.isEmpty { lines += [""] + indexes.lines }
        return lines
    }
}
