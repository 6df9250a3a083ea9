import DataStoreCore
import LMDB
import DataStoreEngine

/// A secondary index as stored: its declaration, its LMDB database, and whether it is complete.
struct IndexTable: Sendable {
    enum State: String, Sendable, Codable {
        /// Being built from existing records; maintained by writes, not yet used by queries.
        case building
        /// Complete: queries may use it.
        case ready
    }

    let definition: IndexDefinition
    let database: Database
    var state: State
    /// Whether the application's last declaration of the collection named this index; one it
    /// left out is kept and maintained until dropped on purpose (see ``/DataStoreEngine/UndeclaredIndexes``).
    var declared = true
    /// While the index is filled from a snapshot of the records: where writes note the records
    /// they change instead of maintaining the index (``IndexBuildLog``).
    var buildLog: IndexBuildLog?
    /// While the index is building: the process (and open of the store) that builds it.
    var owner: IndexBuildOwner? {
        get { ownerBox?.owner }
        set { ownerBox = newValue.map(OwnerBox.init) }
    }
    /// Boxed so that the copies every write makes of the index cost one reference, whatever the owner holds.
    private var ownerBox: OwnerBox?

    private final class OwnerBox: Sendable {
        let owner: IndexBuildOwner
        init(_ owner: IndexBuildOwner) { self.owner = owner }
    }

    init(
        definition: IndexDefinition, database: Database, state: State, declared: Bool = true,
        buildLog: IndexBuildLog? = nil, owner: IndexBuildOwner? = nil
    ) {
        self.definition = definition
        self.database = database
        self.state = state
        self.declared = declared
        self.buildLog = buildLog
        self.owner = owner
    }

    var name: String { definition.name }

    /// Marks the index complete: it has no build log and no builder any more (which also keeps
    /// the copies every write makes of it small).
    mutating func markReady() {
        state = .ready
        buildLog = nil
        owner = nil
    }
    var componentBudget: Int { StorageKeys.componentBudget(fieldCount: definition.fields.count) }

    /// One index entry of a document.
    typealias Entry = IndexEntry

    /// The entries `document` has in this index (``/DataStoreEngine/IndexDefinition/entries(for:idKey:collection:)``).
    func entries(for document: Document, idKey: [UInt8], collection: String) throws(DataStoreError) -> [Entry] {
        try definition.entries(for: document, idKey: idKey, collection: collection)
    }

    /// The entries of the record `body` in this index
    /// (``/DataStoreEngine/IndexDefinition/entries(forRecord:idKey:collection:)``).
    func entries(forRecord body: UnsafeRawBufferPointer, idKey: [UInt8], collection: String) throws(DataStoreError)
        -> [Entry]
    {
        try definition.entries(forRecord: body, idKey: idKey, collection: collection)
    }

    /// The value of this index's entries for the stored record `record` (version, then body):
    /// the record itself for a covering index, so a query reads it from the entry, else nothing.
    func entryValue(record: [UInt8]) -> [UInt8] {
        definition.coversDocument ? record : []
    }

    /// The values of this index's fields in `document`, for comparing against a unique
    /// candidate whose key was cut.
    func values(in document: Document) -> [Value?] {
        definition.fields.map { document.value(atPath: $0.name) }
    }
}

extension IndexTable: DeclaredIndex {
    /// A covering index's entries carry their records.
    var answersFromEntries: Bool { definition.coversDocument }
}
