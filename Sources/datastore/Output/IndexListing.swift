import DataStoreCore
import DataStoreKit
import DataStorePostgres

/// What `index list` prints of an index, whichever kind of store holds it.
protocol ListedIndex {
    var definition: IndexDefinition { get }
    var entries: Int { get }
    var bytes: Int { get }
    /// The index as `--json` shows it.
    var document: Document { get }
    /// "ready", "building", … and whether the collection's declaration names it.
    var stateText: String { get }
}

extension StoreStatistics.Index: ListedIndex {}
extension PostgresStatistics.Index: ListedIndex {}

/// Prints the indexes of one collection as `index list` does, for either store.
func printIndexList(
    _ indexes: [some ListedIndex], collection name: String, idField: String, format: OutputFormat, console: Console
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
