/// Parsing the seed's options dictionary: `limit`, `offset` and `sort` (see docs/queries.md, "Options").
struct QueryOptions {
    /// The option keys, in the order error messages list them.
    static let keys = ["limit", "offset", "sort"]

    var sort: [SortKey] = []
    var limit: Int?
    var offset = 0

    /// Parses `options`.
    ///
    /// - Throws: ``DataStoreError`` `.invalidOption` naming the option, and the value and its
    ///   type when they are wrong.
    /// - Complexity: O(*n*) in the size of the options.
    init(_ options: [String: Value]) throws(DataStoreError) {
        // Report unknown keys first, in a stable order, so one bad dictionary always gives one message.
        if let unknown = options.keys.filter({ !QueryOptions.keys.contains($0) }).min(by: {
            UTF8Order.compare($0, $1) < 0
        }) {
            throw DataStoreError(
                .invalidOption,
                "query option \(Query.quoted(unknown)) is unknown; the options are \"limit\", \"offset\" and \"sort\"")
        }
        if let value = options["limit"], !value.isNull {
            limit = try QueryOptions.count(value, option: "limit")
        }
        if let value = options["offset"], !value.isNull {
            offset = try QueryOptions.count(value, option: "offset")
        }
        if let value = options["sort"], !value.isNull {
            sort = try QueryOptions.sortKeys(value)
        }
    }

    /// A non-negative integer: an `int`, or a `double` with an integral value.
    static func count(_ value: Value, option: String) throws(DataStoreError) -> Int {
        guard value.isNumber, let number = value.intValue, number >= 0, let count = Int(exactly: number) else {
            throw DataStoreError(
                .invalidOption,
                "query option \(Query.quoted(option)) must be a non-negative integer, not \(value.typeName) \(value)")
        }
        return count
    }

    /// The sort keys of a `sort` option: `{"field": {"ascending": Bool}}` with one field, a string
    /// `"field"` or `"-field"`, or an array of one-field objects and strings.
    static func sortKeys(_ value: Value) throws(DataStoreError) -> [SortKey] {
        var keys: [SortKey] = []
        switch value {
        case .object(let document):
            if document.count > 1 {
                let names = document.sortedFields.map { Query.quoted($0.name) }.joined(separator: ", ")
                throw DataStoreError(
                    .invalidOption,
                    "query option \"sort\" names \(document.count) fields (\(names)) in one object, whose order "
                        + "is not defined; use the ordered form, an array such as "
                        + "[{\"a\": {\"ascending\": false}}, \"b\"] or [\"-a\", \"b\"]")
            }
            keys = try document.sortedFields.map { field throws(DataStoreError) in
                try sortKey(field: field.name, spec: field.value)
            }
        case .string(let text):
            keys = [try sortKey(string: text)]
        case .array(let elements):
            for element in elements {
                switch element {
                case .string(let text):
                    keys.append(try sortKey(string: text))
                case .object(let document) where document.count == 1:
                    let field = document.sortedFields[0]
                    keys.append(try sortKey(field: field.name, spec: field.value))
                default:
                    throw DataStoreError(
                        .invalidOption,
                        "query option \"sort\" has the element \(element.typeName) \(element); each element must be "
                            + "a string \"field\" or \"-field\", or an object with one field such as "
                            + "{\"field\": {\"ascending\": false}}")
                }
            }
        default:
            throw DataStoreError(
                .invalidOption,
                "query option \"sort\" must be an object, an array or a string, not \(value.typeName) \(value)")
        }
        var seen: Set<String> = []
        for key in keys where !seen.insert(key.field).inserted {
            throw DataStoreError(
                .invalidOption, "query option \"sort\" names the field \(Query.quoted(key.field)) twice")
        }
        return keys
    }

    /// `"field"` (ascending) or `"-field"` (descending).
    static func sortKey(string: String) throws(DataStoreError) -> SortKey {
        if string.first == "-" {
            return SortKey(field: try sortField(String(string.dropFirst()), written: string), ascending: false)
        }
        return SortKey(field: try sortField(string, written: string), ascending: true)
    }

    /// `field: {"ascending": Bool}`; a missing `ascending` is `true`.
    static func sortKey(field: String, spec: Value) throws(DataStoreError) -> SortKey {
        let name = try sortField(field, written: field)
        guard case .object(let document) = spec else {
            throw DataStoreError(
                .invalidOption,
                "query option \"sort\" gives the field \(Query.quoted(field)) \(spec.typeName) \(spec); "
                    + "write {\"ascending\": true} or {\"ascending\": false}")
        }
        if let other = document.sortedFields.first(where: { $0.name != "ascending" }) {
            throw DataStoreError(
                .invalidOption,
                "query option \"sort\" has the unknown key \(Query.quoted(other.name)) for the field "
                    + "\(Query.quoted(field)); the only key is \"ascending\"")
        }
        switch document["ascending"] {
        case nil:
            return SortKey(field: name, ascending: true)
        case .bool(let ascending):
            return SortKey(field: name, ascending: ascending)
        case let value?:
            throw DataStoreError(
                .invalidOption,
                "query option \"sort\" has \"ascending\" \(value.typeName) \(value) for the field "
                    + "\(Query.quoted(field)); it must be true or false")
        }
    }

    /// Checks a sort field name: non-empty, without whitespace.
    static func sortField(_ field: String, written: String) throws(DataStoreError) -> String {
        if field.isEmpty || field.contains(where: \.isWhitespace) {
            throw DataStoreError(
                .invalidOption,
                "query option \"sort\" has the field \(Query.quoted(written)); a field name is non-empty and has "
                    + "no whitespace")
        }
        try FieldPath.check(field, context: "query option \"sort\"", code: .invalidOption)
        return field
    }
}
