import DataStoreCore
import DataStoreKit

/// Prints the indexes of one collection as `index list` does, for any store.
func printIndexList(
    _ indexes: [IndexStatistics], collection name: String, idField: String, format: OutputFormat, console: Console
) throws {
    switch format {
    case .json:
        console.print(
            try JSONWriter.text([
                "collection": .string(name), "idField": .string(idField),
                "indexes": .array(indexes.map { .object($0.document) })
            ]))
    case .table where indexes.isEmpty:
        console.print("collection \(name) has no secondary indexes")
    case .table:
        var table = Table(["index", "fields", "options", "state", "entries", "size"], rightAligned: [4, 5])
        for index in indexes {
            table.append([
                index.definition.name, index.definition.fieldList, index.definition.traits, index.stateText,
                grouped(index.entries), byteSize(index.bytes)
            ])
        }
        for line in table.lines { console.print(line) }
    }
}
