public import DataStoreCore

/// What a store reports of itself (``DocumentStore/report()``, `datastore stats`): its collections
/// and their indexes in one shape on every backend, and the facts only its backend has — an LMDB
/// store's map and readers, a server's version — each with the key its JSON form uses.
public struct StoreReport: Sendable {
    /// One fact of the backend's.
    public struct Fact: Sendable, Hashable {
        /// Its key in the report's JSON form.
        public var key: String
        /// How a table labels it, or `nil` for a fact another one's text already shows.
        public var label: String?
        /// Its value.
        public var value: Value
        /// How a table shows it, or `nil` for the value's own rendering.
        public var text: String?
        /// Whether the value is a number of bytes (a table shows it as a size).
        public var isByteCount: Bool

        public init(key: String, label: String?, value: Value, text: String? = nil, isByteCount: Bool = false) {
            self.key = key
            self.label = label
            self.value = value
            self.text = text
            self.isByteCount = isByteCount
        }
    }

    /// A listing of the backend's own (an LMDB store's readers): its columns and rows as text.
    public struct Listing: Sendable, Hashable {
        public var columns: [String]
        /// The columns whose cells read best right-aligned (numbers).
        public var rightAligned: [Int]
        public var rows: [[String]]

        public init(columns: [String], rightAligned: [Int] = [], rows: [[String]]) {
            self.columns = columns
            self.rightAligned = rightAligned
            self.rows = rows
        }
    }

    /// The backend's facts, in the order a table shows them.
    public var facts: [Fact]
    /// The backend's own listings, shown after the facts.
    public var listings: [Listing]
    /// Every collection, by name.
    public var collections: [CollectionStatistics]

    public init(facts: [Fact], listings: [Listing] = [], collections: [CollectionStatistics]) {
        self.facts = facts
        self.listings = listings
        self.collections = collections
    }
}

/// One collection as a store reports it.
public struct CollectionStatistics: Sendable, Hashable {
    public var name: String
    /// The field holding each document's id.
    public var idField: String
    /// How many documents it holds.
    public var documents: Int
    /// The bytes its records take.
    public var bytes: Int
    /// Its secondary indexes.
    public var indexes: [IndexStatistics]
    /// What only this backend says of it (a server's table name), for the report's JSON form.
    public var details: Document

    public init(
        name: String, idField: String, documents: Int, bytes: Int, indexes: [IndexStatistics],
        details: Document = Document()
    ) {
        self.name = name
        self.idField = idField
        self.documents = documents
        self.bytes = bytes
        self.indexes = indexes
        self.details = details
    }
}

/// One secondary index as a store reports it.
public struct IndexStatistics: Sendable, Hashable {
    /// The declaration.
    public var definition: IndexDefinition
    /// `"ready"`, or `"building"` while it is filled from existing records.
    public var state: String
    /// `false` when the application's last declaration left it out (``UndeclaredIndexes``).
    public var declared: Bool
    /// Its entries (one per document, or per distinct element for a multi-value index).
    public var entries: Int
    /// The bytes it takes.
    public var bytes: Int

    public init(definition: IndexDefinition, state: String, declared: Bool, entries: Int, bytes: Int) {
        self.definition = definition
        self.state = state
        self.declared = declared
        self.entries = entries
        self.bytes = bytes
    }
}
