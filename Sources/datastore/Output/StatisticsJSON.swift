import DataStoreCore
import DataStoreKit

// Statistics and index declarations as documents, which JSONWriter prints for `--json`.

extension IndexDefinition {
    /// `{"name", "fields": [{"name", "descending"}], "unique", "multiValue", "covering"}`.
    var document: Document {
        [
            "name": .string(name),
            "fields": .array(fields.map { .object(["name": .string($0.name), "descending": .bool($0.descending)]) }),
            "unique": .bool(unique),
            "multiValue": .bool(multiValue),
            "covering": .bool(covering != nil)
        ]
    }

    /// The fields as `--fields` takes them: `created_ts,-score`.
    var fieldList: String {
        fields.map { ($0.descending ? "-" : "") + $0.name }.joined(separator: ",")
    }

    /// `unique, multi-value, covering`, or empty.
    var traits: String {
        [unique ? "unique" : nil, multiValue ? "multi-value" : nil, covering.map(\.description)].compactMap { $0 }
            .joined(separator: ", ")
    }
}

extension StoreStatistics.Index {
    /// The state as tables show it: `ready`, `building`, and `, not declared` for an index the
    /// application's declaration left out.
    var stateText: String { declared ? state : state + ", not declared" }

    /// The declaration with its `state`, `declared`, `entries` and `bytes`.
    var document: Document {
        var document = definition.document
        document["state"] = .string(state)
        document["declared"] = .bool(declared)
        document["entries"] = .int(Int64(entries))
        document["bytes"] = .int(Int64(bytes))
        return document
    }
}

extension StoreStatistics.Collection {
    /// `{"name", "idField", "documents", "bytes", "indexes": […]}`.
    var document: Document {
        [
            "name": .string(name),
            "idField": .string(idField),
            "documents": .int(Int64(documents)),
            "bytes": .int(Int64(bytes)),
            "indexes": .array(indexes.map { .object($0.document) })
        ]
    }
}

extension StoreStatistics.Reader {
    /// `{"pid", "thisProcess", "snapshotTransactionID", "commitsBehind", "ageSeconds", "holder"}`;
    /// age and holder are `null` where unknown (other processes, short reads).
    var document: Document {
        [
            "pid": .int(Int64(processID)),
            "thisProcess": .bool(isThisProcess),
            "snapshotTransactionID": .int(Int64(snapshotID)),
            "commitsBehind": .int(Int64(commitsBehind)),
            "ageSeconds": age.map { .double(Double($0.components.seconds) + Double($0.components.attoseconds) / 1e18) }
                ?? .null,
            "holder": holder.map { .string($0) } ?? .null
        ]
    }
}

extension StoreStatistics {
    /// Everything, for `stats --json`.
    func document(path: String) -> Document {
        [
            "path": .string(path),
            "formatVersion": .int(Int64(formatVersion)),
            "mapSize": .int(Int64(mapSize)),
            "bytesInUse": .int(Int64(bytesInUse)),
            "lastTransactionID": .int(Int64(lastTransactionID)),
            "maxReaders": .int(Int64(maxReaders)),
            "readersInUse": .int(Int64(readersInUse)),
            "readers": .array(readers.map { .object($0.document) }),
            "collections": .array(collections.map { .object($0.document) })
        ]
    }
}
