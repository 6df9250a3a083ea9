package import DataStoreCore

/// A secondary index declared on a collection: which fields it orders documents by.
///
/// ```swift
/// IndexDefinition("created_ts")                                   // one field
/// IndexDefinition("by_pair", fields: ["from_user_key", "to_user_key"])  // compound
/// IndexDefinition("email", unique: true)                          // unique
/// IndexDefinition("tags", multiValue: true)                       // each array element
/// IndexDefinition("newest", fields: [.descending("created_ts")])  // descending
/// IndexDefinition("created_ts", covering: .document)              // answers without the records
/// ```
///
/// Every document has an entry in every index (a missing field is indexed as *missing*, which
/// sorts before every value), so an index can answer any query on its leading fields.
public struct IndexDefinition: Sendable, Hashable, Codable, CustomStringConvertible {
    /// One field of an index and its direction.
    public struct Field: Sendable, Hashable, Codable, ExpressibleByStringLiteral, CustomStringConvertible {
        /// The document field: a top-level name, or a dotted path into nested objects
        /// (`"address.city"`; `\.` is a dot within a name, see `FieldPath`).
        public var name: String
        /// Whether the index orders this field from high to low.
        public var descending: Bool

        /// A field in the given direction.
        public init(_ name: String, descending: Bool = false) {
            self.name = name
            self.descending = descending
        }

        public init(stringLiteral name: String) { self.init(name) }

        /// A field ordered from high to low.
        public static func descending(_ name: String) -> Field { Field(name, descending: true) }

        public var description: String { descending ? "\(name) desc" : name }
    }

    /// The index's name, unique within its collection.
    public var name: String
    /// The fields, in key order: equality conditions on a prefix, then one range, are served.
    public var fields: [Field]
    /// Whether two documents may not share the same values (missing fields excepted).
    public var unique: Bool
    /// Whether the (single) field holds arrays whose elements are indexed one by one.
    public var multiValue: Bool
    /// What each entry carries besides its key so that a query the index serves reads no record
    /// (``Covering``); `nil` for an index of keys alone.
    public var covering: Covering?

    /// Declares an index.
    /// - Parameters:
    ///   - name: The index name; also its single field when `fields` is empty.
    ///   - fields: The fields in key order (default: `[name]`).
    ///   - unique: Refuse a second document with the same values.
    ///   - multiValue: Index each element of an array field.
    ///   - covering: Carry a copy of each document in its entries, so that queries the index serves
    ///     read no record (faster reads, slower writes, a larger file).
    public init(
        _ name: String, fields: [Field] = [], unique: Bool = false, multiValue: Bool = false,
        covering: Covering? = nil
    ) {
        self.name = name
        self.fields = fields.isEmpty ? [Field(name)] : fields
        self.unique = unique
        self.multiValue = multiValue
        self.covering = covering
    }

    public var description: String {
        var text = "\(name)(\(fields.map(\.description).joined(separator: ", "))"
        if unique { text += ", unique" }
        if multiValue { text += ", multi-value" }
        if let covering { text += ", \(covering)" }
        return text + ")"
    }

    /// Throws unless collection `name`, with its ids in `idField`, may be declared with `indexes`:
    /// the checks every store makes before it reads or writes anything (``StoreNames``, then
    /// each definition's, then that no two share a name).
    package static func validateDeclaration(of name: String, idField: String, indexes: [IndexDefinition])
        throws(DataStoreError)
    {
        try StoreNames.checkCollection(name)
        try StoreNames.checkIDField(idField, collection: name)
        for definition in indexes { try definition.validate(collection: name) }
        if Set(indexes.map(\.name)).count != indexes.count {
            throw DataStoreError(.schemaMismatch, "collection \(name) declares two indexes with the same name")
        }
    }

    /// Checks the declaration itself, naming what is wrong.
    package func validate(collection: String) throws(DataStoreError) {
        try StoreNames.checkIndex(name, collection: collection)
        if fields.contains(where: { $0.name.isEmpty }) {
            throw DataStoreError(.schemaMismatch, "index \(name) on \(collection) names an empty field")
        }
        for field in fields {
            try FieldPath.check(field.name, context: "index \(name) on \(collection)", code: .schemaMismatch)
        }
        if Set(fields.map(\.name)).count != fields.count {
            throw DataStoreError(.schemaMismatch, "index \(name) on \(collection) repeats a field")
        }
        if multiValue && fields.count != 1 {
            throw DataStoreError(
                .schemaMismatch, "multi-value index \(name) on \(collection) must have exactly one field")
        }
        if fields.count > 8 {
            throw DataStoreError(
                .schemaMismatch, "index \(name) on \(collection) has \(fields.count) fields; at most 8")
        }
    }
}
