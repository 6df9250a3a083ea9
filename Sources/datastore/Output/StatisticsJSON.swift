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

extension IndexStatistics {
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

extension CollectionStatistics {
    /// `{"name", "idField", "documents", "bytes", "indexes": […]}` and the backend's own details.
    var document: Document {
        var document = details
        document["name"] = .string(name)
        document["idField"] = .string(idField)
        document["documents"] = .int(Int64(documents))
        document["bytes"] = .int(Int64(bytes))
        document["indexes"] = .array(indexes.map { .object($0.document) })
        return document
    }
}

extension StoreReport {
    /// Everything, for `stats --json`: the backend's facts under their keys, and the collections.
    var document: Document {
        var document = Document()
        for fact in facts { document[fact.key] = fact.value }
        document["collections"] = .array(collections.map { .object($0.document) })
        return document
    }
}
