import DataStoreCore

/// Prints documents: a table for people, or one JSON object per line.
struct DocumentPrinter {
    let console: Console
    let format: OutputFormat
    /// The id field, shown as the first column.
    let idField: String

    /// Prints `documents`: JSON Lines, or a table whose columns are the id field then every other
    /// top-level field, by name.
    func print(_ documents: [Document]) throws(ToolError) {
        switch format {
        case .json:
            for document in documents { try printJSON(document) }
        case .table:
            var names = Set<String>()
            for document in documents { names.formUnion(document.fields.keys) }
            names.remove(idField)
            let columns = [idField] + names.sorted()
            var table = Table(columns)
            for document in documents {
                table.append(columns.map { name in document[name].map(DocumentPrinter.cell) ?? "" })
            }
            for line in table.lines { console.print(line) }
            console.print("(\(documents.count) document\(documents.count == 1 ? "" : "s"))")
        }
    }

    /// Prints one document: a JSON object, or a two-column table of its fields.
    func print(_ document: Document) throws(ToolError) {
        switch format {
        case .json:
            try printJSON(document)
        case .table:
            var table = Table(["field", "value"])
            table.maxCellWidth = 100
            if let id = document[idField] { table.append([idField, DocumentPrinter.cell(id)]) }
            for field in document.sortedFields where field.name != idField {
                table.append([field.name, DocumentPrinter.cell(field.value)])
            }
            for line in table.lines { console.print(line) }
        }
    }

    /// Prints one document as a line of JSON.
    func printJSON(_ document: Document) throws(ToolError) {
        var writer = JSONWriter()
        try writer.append(document)
        console.output.write(bytes: writer.bytes)
        console.output.write("\n")
    }

    /// A value in a table cell: a string as itself, anything else as its description.
    static func cell(_ value: Value) -> String {
        if case .string(let text) = value { return text }
        return value.description
    }
}
