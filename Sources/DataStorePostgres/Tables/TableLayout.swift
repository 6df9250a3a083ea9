import DataStoreCore
import DataStoreEngine
import Dispatch
import Synchronization

/// One collection as the PostgreSQL store holds it: its table, its id field and its indexes.
///
/// Table and column names are made from numbers kept in `_meta`, never from collection, index
/// or field names, so no name a user gives ever reaches SQL text.
package final class TableLayout: Sendable {
    /// The collection's name.
    let name: String
    /// The field holding each object's id.
    let idField: String
    /// The number naming the table (`dsk_c<tag>`).
    let tag: Int
    /// The stored indexes, their definitions as the planner takes them, and the bytes `_meta`
    /// holds for them (``SchemaCatalog``), which a write batch compares with the stored ones.
    private let indexList: Mutex<(indexes: [StoredIndex], definitions: [IndexDefinition], encoded: [UInt8])>
    /// When the index list was last read from `_meta`, or found the same as `_meta`'s by a write
    /// batch (`DispatchTime`'s nanoseconds: an atomic integer, read by every query for little).
    private let indexListChecked = Atomic<UInt64>(DispatchTime.now().uptimeNanoseconds)
    /// The planner's remembered choices, forgotten when the indexes change.
    let planCache = PlanCache()
    /// The candidate statements' texts, built once per shape.
    let statementTexts = StatementTexts()
    /// The parameter dictionaries' shapes met (``PostgresWindowQuery`` where compiled), and the
    /// generation of ``planCache`` they were planned under.
    let dictionaryShapes = Mutex<(generation: Int, table: ShapeTable<PostgresWindowQuery>)>((0, ShapeTable()))

    /// The layout of the collection `name` stored with `indexes`, which `_meta` holds as `encoded`
    /// (by default, as ``SchemaCatalog`` writes them).
    init(name: String, idField: String, tag: Int, indexes: [StoredIndex], encoded: [UInt8]? = nil) {
        self.name = name
        self.idField = idField
        self.tag = tag
        self.indexList = Mutex((indexes, indexes.map(\.definition), encoded ?? SchemaCatalog.encode(indexes)))
        table = "dsk_c\(tag)"
        recordByID = SQLText("SELECT record FROM \(table) WHERE id = $1")
        recordsByIDs = SQLText("SELECT id, record, version FROM \(table) WHERE id = ANY($1::bytea[])")
        recordForUpdate = SQLText("SELECT record FROM \(table) WHERE id = $1 FOR UPDATE")
    }

    /// The table's name.
    let table: String
    /// The statement that reads one record by id.
    let recordByID: SQLText
    /// The statement that reads the rows of several ids.
    let recordsByIDs: SQLText
    /// The statement that reads one record by id and locks its row until the transaction ends.
    let recordForUpdate: SQLText
    /// The side table of a multi-value index.
    func sideTable(_ index: StoredIndex) -> String { "\(table)_m\(index.column)" }

    /// The name of the unique index that enforces `index`.
    func uniqueConstraint(_ index: StoredIndex) -> String {
        index.definition.multiValue ? "\(sideTable(index))_u" : "\(table)_u\(index.column)"
    }

    /// Every stored index.
    var indexes: [StoredIndex] { indexList.withLock { $0.indexes } }
    /// Single-value indexes, whose entries are columns of the table.
    var columnIndexes: [StoredIndex] { indexes.filter { !$0.definition.multiValue } }

    /// The bytes `_meta` held for the index list when this layout last read or wrote it.
    var encodedIndexes: [UInt8] { indexList.withLock { $0.encoded } }

    /// Takes the index list `_meta` holds as `encoded`: replaces this layout's when it holds other
    /// indexes, or the same in other columns (whether the application declared them does not
    /// count), and returns whether it did.
    func adopt(stored encoded: [UInt8]) -> Bool {
        let stored = SchemaCatalog.indexes(decoding: encoded)
        let current = indexes
        let differs =
            current.count != stored.count
            || zip(current, stored).contains { $0.definition != $1.definition || $0.column != $1.column }
        if differs {
            replaceIndexes(stored, encoded: encoded)
        } else {
            indexList.withLock { $0.encoded = encoded }
            noteIndexListChecked()
        }
        return differs
    }

    /// Notes that the index list is `_meta`'s as of now.
    func noteIndexListChecked() {
        indexListChecked.store(DispatchTime.now().uptimeNanoseconds, ordering: .relaxed)
    }

    /// Whether the index list was checked against `_meta` longer than `maxAge` nanoseconds ago;
    /// if so, it counts as checked now, so that of the reads asking at once, one reads `_meta`.
    func claimIndexListCheck(olderThan maxAge: UInt64) -> Bool {
        let checked = indexListChecked.load(ordering: .relaxed)
        let now = DispatchTime.now().uptimeNanoseconds
        guard now >= checked, now - checked >= maxAge else { return false }
        return indexListChecked.compareExchange(expected: checked, desired: now, ordering: .relaxed).exchanged
    }

    /// Replaces the index list after a schema change; `encoded` is how `_meta` holds it.
    func replaceIndexes(_ indexes: [StoredIndex], encoded: [UInt8]? = nil) {
        let encoded = encoded ?? SchemaCatalog.encode(indexes)
        indexList.withLock { $0 = (indexes, indexes.map(\.definition), encoded) }
        noteIndexListChecked()
        planCache.forgetAll()
    }

    /// The plan for `query`, chosen by the same planner as the LMDB store's, without the narrowing
    /// by a second index, which the server's statements do not do (every candidate is re-checked).
    func plan(_ query: Query) -> QueryPlan {
        // The generation first: a plan made over a list replaced meanwhile is kept under the old one.
        let generation = planCache.generation
        return plan(query, definitions: indexList.withLock { $0.definitions }, choices: (planCache, generation))
    }

    /// The plan for `query` over `indexes` alone (a context's snapshot may hold fewer than the
    /// collection has now), chosen afresh.
    func plan(_ query: Query, over indexes: [StoredIndex]) -> QueryPlan {
        plan(query, definitions: indexes.map(\.definition), choices: nil)
    }

    private func plan(
        _ query: Query, definitions: [IndexDefinition], choices: (table: PlanCache, generation: Int)?
    ) -> QueryPlan {
        var plan = QueryPlanner.plan(
            query, idField: idField, definitions: definitions, collection: name, choices: choices)
        plan.intersection = nil
        return plan
    }

    /// The record key of `id`.
    func idKey(_ id: Value) throws(DataStoreError) -> [UInt8] {
        try StorageKeys.idKey(id, collection: name)
    }

    /// The id a stored record holds in the id field.
    /// - Throws: ``/DataStoreCore/DataStoreError`` `.codec` for a record without one, or unreadable.
    func storedID(in body: UnsafeRawBufferPointer) throws -> Value {
        guard let id = try RecordCodec.field(idField, in: body) else {
            throw DataStoreError(.codec, "a record of \(name) holds no id in \(idField)")
        }
        return id
    }
}
