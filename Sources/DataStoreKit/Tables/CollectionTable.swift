import DataStoreCore
import LMDB
import Synchronization
import DataStoreEngine

/// One collection as stored: its records database and its secondary indexes. Shared by every
/// handle on the collection in the process; its index list changes only on the writer thread.
package final class CollectionTable: Sendable {
    let name: String
    let idField: String
    let records: Database
    private let indexList: Mutex<(all: [IndexTable], ready: [IndexTable], asciiNames: Bool)>
    /// The planner's remembered choices for this collection's queries, forgotten whenever the
    /// indexes change.
    let planCache = PlanCache()
    /// The parameter dictionaries' shapes met (``PointQuery`` where compiled), and the generation
    /// of ``planCache`` they were planned under.
    let dictionaryShapes = Mutex<(generation: Int, table: ShapeTable<PointQuery>)>((0, ShapeTable()))
    /// Records looked up through index entries (``recordLookups``).
    let recordLookupCount = Atomic<Int>(0)

    /// The store's watch of stored schemas, consulted before each plan (`nil`: none to consult).
    let schemaWatch: SchemaWatch?

    /// The largest encoded record a write takes (``DataStore/Options/maxDocumentBytes``).
    let maxDocumentBytes: Int

    init(
        name: String, idField: String, records: Database, indexes: [IndexTable], schemaWatch: SchemaWatch? = nil,
        maxDocumentBytes: Int = DocumentSize.defaultLimit
    ) {
        self.name = name
        self.maxDocumentBytes = maxDocumentBytes
        self.idField = idField
        self.records = records
        self.schemaWatch = schemaWatch
        self.indexList = Mutex((indexes, indexes.filter { $0.state == .ready }, Self.namesAreASCII(idField, indexes)))
    }

    /// Every index, complete or being built (writes maintain both).
    var indexes: [IndexTable] { indexList.withLock { $0.all } }

    /// The complete indexes, which queries may use (kept apart so that planning a query does not
    /// filter the list each time).
    var readyIndexes: [IndexTable] { indexList.withLock { $0.ready } }

    /// Every index, and whether the id field and every index field are named in plain ASCII, so
    /// that fields found by their bytes in a record are the fields a ``/DataStoreCore/Document`` finds by name
    /// (``prepare(record:id:generatingMissingID:)``).
    var indexesAndNames: (indexes: [IndexTable], ascii: Bool) { indexList.withLock { ($0.all, $0.asciiNames) } }

    private static func namesAreASCII(_ idField: String, _ indexes: [IndexTable]) -> Bool {
        func ascii(_ name: String) -> Bool { name.utf8.allSatisfy { $0 < 0x80 } }
        return ascii(idField) && indexes.allSatisfy { $0.definition.fields.allSatisfy { ascii($0.name) } }
    }

    func replaceIndexes(_ update: (inout [IndexTable]) -> Void) {
        indexList.withLock { list in
            update(&list.all)
            list.ready = list.all.filter { $0.state == .ready }
            list.asciiNames = Self.namesAreASCII(idField, list.all)
            planCache.forgetAll()
        }
    }

    /// The plan for `query` over the complete indexes, reusing the choice made for earlier
    /// queries of its shape (``PlanCache``).
    func plan(_ query: Query) -> QueryPlan {
        // Another process may have changed the indexes since this one last looked.
        schemaWatch?.refreshIfStale()
        // The generation before the list: a list that changes after it makes the choice stale.
        let generation = planCache.generation
        return QueryPlanner.plan(
            query, idField: idField, indexes: readyIndexes, collection: name,
            choices: (planCache, generation))
    }

    /// The plan for a prepared query's `query`, reusing the choice `pinned` keeps for its shape.
    func plan(_ query: Query, pinned: PinnedPlanChoice) -> QueryPlan {
        schemaWatch?.refreshIfStale()
        let generation = planCache.generation
        return QueryPlanner.plan(
            query, idField: idField, indexes: readyIndexes, collection: name,
            memory: .pinned(pinned, generation: generation))
    }

    /// The record key of `id` in this collection.
    func idKey(_ id: Value) throws(DataStoreError) -> [UInt8] {
        try StorageKeys.idKey(id, collection: name)
    }

    /// The one error for a stored record that cannot be decoded, naming the collection, the record's id
    /// when known, and the type it was to become.
    func undecodable(id: String?, into type: Any.Type? = nil, _ underlying: any Error) -> DataStoreError {
        let record = id.map { "the record \($0)" } ?? "a record"
        let target = type.map { " into \($0)" } ?? ""
        return DataStoreError(
            .codec, "\(record) in collection \(name) cannot be decoded\(target)", underlying: underlying)
    }

    /// ``undecodable(id:into:_:)`` for the record under `idKey`.
    func unreadable(_ idKey: UnsafeRawBufferPointer, _ underlying: any Error) -> DataStoreError {
        let id =
            (try? KeyCodec.decode(Array(idKey)).first).flatMap { $0 }.map(String.init(describing:)) ?? "\(Array(idKey))"
        return undecodable(id: id, underlying)
    }

    /// Runs `read` on the record under `idKey`, so that what it throws names the record: a
    /// `.codec` error (its cause kept) or any error of another type becomes ``unreadable(_:_:)``;
    /// another `DataStoreError` passes as it is.
    @inline(__always)
    func namingRecord<T>(_ idKey: UnsafeRawBufferPointer, _ read: () throws -> T) throws -> T {
        do {
            return try read()
        } catch let error as DataStoreError where error.code == .codec {
            throw unreadable(idKey, error.underlying ?? error)
        } catch let error as DataStoreError {
            throw error
        } catch {
            throw unreadable(idKey, error)
        }
    }

    /// Decodes a stored record (version + document bytes) into a document.
    func decodeDocument(_ record: UnsafeRawBufferPointer, id: String? = nil) throws(DataStoreError) -> Document {
        do {
            return try RecordCodec.decode(RecordVersion.body(record))
        } catch {
            throw undecodable(id: id, error)
        }
    }
}

/// What a write expects to find, for conflict detection.
enum ExpectedVersion: Sendable, Hashable {
    /// No check.
    case any
    /// The record must not exist.
    case absent
    /// The record must exist with this version.
    case version(Int)
}

/// How a document is written.
enum WriteMode: Sendable {
    /// Insert; the id must not be stored (``/DataStoreCore/DataStoreError/Code/duplicateID``).
    case insert
    /// Replace, or insert when absent (the seed's `put`).
    case upsert
}

extension CollectionTable {
    /// Writes a document prepared with ``prepare(_:id:)`` under its id, maintaining every index,
    /// inside `transaction`.
    ///
    /// A throw may leave part of the write in `transaction`: the writer rolls the whole change set
    /// back (see `WriterCore.ApplyPlan`).
    /// - Returns: the previous document (for upserts) and the new version.
    @discardableResult
    func write(
        _ prepared: PreparedDocument,
        mode: WriteMode,
        expecting expected: ExpectedVersion = .any,
        in transaction: inout WriteTransaction
    ) throws -> (previous: Document?, version: Int) {
        let (id, key) = (prepared.id, prepared.key)
        if mode == .insert, expected == .any {
            return try insert(prepared, in: &transaction)
        }
        let existing = try storedDocument(key, id: id, in: &transaction)
        if mode == .insert, existing != nil {
            throw DataStoreError(.duplicateID, "an object with id \(id) already exists in \(name)")
        }
        try check(expected, found: existing?.0, id: id)

        let version = transaction.transactionID
        let record = Self.record(prepared, version: version)
        for index in indexes {
            if let log = index.buildLog {
                _ = try prepared.entries(of: index, collection: name)
                noteWrite(of: key, before: existing?.1, in: index, log: log, transaction: version)
                continue
            }
            guard let (_, old) = existing else {
                try addEntries(of: prepared, to: index, record: record, in: &transaction)
                continue
            }
            let newEntries = try prepared.entries(of: index, collection: name)
            let oldEntries = try index.entries(for: old, idKey: key, collection: name)
            let oldKeys = Set(oldEntries.map(\.key))
            let newKeys = Set(newEntries.map(\.key))
            // A cut key the record already had may now stand for another value: check it too.
            for entry in newEntries where !oldKeys.contains(entry.key) || entry.isTruncated {
                if index.definition.unique && !entry.hasMissingField {
                    try checkUnique(entry, of: prepared.document(), in: index, idKey: key, transaction: transaction)
                }
            }
            for entry in oldEntries where !newKeys.contains(entry.key) {
                try transaction.delete(entry.key, in: index.database)
            }
            // A covering entry carries the record, which changed even where the key did not.
            let covering = index.definition.coversDocument
            for entry in newEntries where covering || !oldKeys.contains(entry.key) {
                try transaction.put(index.entryValue(record: record), forKey: entry.key, in: index.database)
            }
        }
        try transaction.put(record, forKey: key, in: records)
        transaction.noteChange(existing == nil ? .inserted : .updated, id, in: name)
        return (existing?.1, version)
    }

    /// The stored record of `prepared`: its version, then its body.
    private static func record(_ prepared: PreparedDocument, version: Int) -> [UInt8] {
        var record: [UInt8] = []
        record.reserveCapacity(RecordVersion.byteCount + prepared.body.count)
        RecordVersion.append(version, to: &record)
        record.append(contentsOf: prepared.body)
        return record
    }

    /// Puts the entries of a document with no previous version into `index`, after checking a
    /// unique index.
    private func addEntries(
        of prepared: PreparedDocument, to index: IndexTable, record: [UInt8], in transaction: inout WriteTransaction
    ) throws {
        let entries = try prepared.entries(of: index, collection: name)
        if index.definition.unique {
            for entry in entries where !entry.hasMissingField {
                try checkUnique(
                    entry, of: prepared.document(), in: index, idKey: prepared.key, transaction: transaction)
            }
        }
        let value = index.entryValue(record: record)
        for entry in entries { try transaction.put(value, forKey: entry.key, in: index.database) }
    }

    /// Inserts `prepared`, whose id must be free. A put that refuses an existing key answers
    /// that in the same b-tree descent that writes the record, where a lookup first cost a second
    /// descent on the writer thread for every insert. The record is written before the index
    /// entries are checked: a unique violation then fails the change set with the record in its
    /// transaction, which the writer rolls back with the rest of the change set.
    private func insert(_ prepared: PreparedDocument, in transaction: inout WriteTransaction) throws -> (
        previous: Document?, version: Int
    ) {
        let version = transaction.transactionID
        let record = Self.record(prepared, version: version)
        do {
            try transaction.put(record, forKey: prepared.key, in: records, options: .noOverwrite)
        } catch {
            guard error.code == .keyExists else { throw error }
            throw DataStoreError(.duplicateID, "an object with id \(prepared.id) already exists in \(name)")
        }
        for index in indexes {
            if let log = index.buildLog {
                _ = try prepared.entries(of: index, collection: name)
                noteWrite(of: prepared.key, before: nil, in: index, log: log, transaction: version)
                continue
            }
            try addEntries(of: prepared, to: index, record: record, in: &transaction)
        }
        transaction.noteChange(.inserted, prepared.id, in: name)
        return (nil, version)
    }

    /// Removes the object stored under `id` with its index entries, and returns it.
    /// - Throws: ``/DataStoreCore/DataStoreError/Code/notFound`` naming the id and the collection.
    func remove(id: Value, expecting expected: ExpectedVersion = .any, in transaction: inout WriteTransaction) throws
        -> Document
    {
        let key = try idKey(id)
        let existing = try storedDocument(key, id: id, in: &transaction)
        try check(expected, found: existing?.0, id: id)
        guard let (_, document) = existing else {
            throw DataStoreError(.notFound, "no object with id \(id) in \(name)")
        }
        for index in indexes {
            if let log = index.buildLog {
                noteWrite(of: key, before: document, in: index, log: log, transaction: transaction.transactionID)
                continue
            }
            for entry in try index.entries(for: document, idKey: key, collection: name) {
                try transaction.delete(entry.key, in: index.database)
            }
        }
        try transaction.delete(key, in: records)
        transaction.noteChange(.removed, id, in: name)
        return document
    }

    /// The stored version and document under `key`, or `nil` when absent.
    ///
    /// A record that cannot be decoded (damaged on disk) is being replaced or removed: its index
    /// entries are found by id and deleted, and it counts as an empty document of version 0, so
    /// the write repairs the store instead of failing on the damage it would remove.
    private func storedDocument(_ key: [UInt8], id: Value, in transaction: inout WriteTransaction) throws -> (
        Int, Document
    )? {
        let stored: Result<(Int, Document), any Error>? = try transaction.withValue(forKey: key, in: records) {
            record in
            Result { (try RecordVersion.read(record), try decodeDocument(record, id: "\(id)")) }
        }
        switch stored {
        case nil: return nil
        case .success(let found)?: return found
        case .failure?:
            try purgeIndexEntries(of: key, in: &transaction)
            return (0, Document())
        }
    }

    /// Deletes every index entry that points at the record key `key`.
    /// - Complexity: O(entries of every index): only for repairing a damaged record.
    private func purgeIndexEntries(of key: [UInt8], in transaction: inout WriteTransaction) throws {
        for index in indexes {
            if let log = index.buildLog {
                // Its entries for the record may not be appended yet: the build's last step finds them.
                log.note(key, in: transaction.transactionID, keysBefore: nil)
                continue
            }
            try purgeEntries(of: key, in: index, transaction: &transaction)
        }
    }

    /// Deletes every entry of `index` that points at the record key `key`.
    /// - Complexity: O(entries of the index).
    func purgeEntries(of key: [UInt8], in index: IndexTable, transaction: inout WriteTransaction) throws {
        var stray: [[UInt8]] = []
        try transaction.walk(index.database) { entryKey, _ in
            if StorageKeys.idKey(inIndexKey: entryKey)?.elementsEqual(key) == true { stray.append(Array(entryKey)) }
            return true
        }
        for entryKey in stray { try transaction.delete(entryKey, in: index.database) }
    }

    private func check(_ expected: ExpectedVersion, found: Int?, id: Value) throws(DataStoreError) {
        switch (expected, found) {
        case (.any, _), (.absent, nil):
            return
        case (.version(let wanted), let found?) where wanted == found:
            return
        default:
            let now = found.map { "version \($0)" } ?? "absent"
            throw DataStoreError(.conflict, "\(name)/\(id) changed since it was read (now \(now))")
        }
    }

    /// Throws ``/DataStoreCore/DataStoreError/Code/uniqueViolation`` when another record has the same values in
    /// a unique index. Entries whose key was cut are compared by their real values.
    func checkUnique(
        _ entry: IndexTable.Entry,
        of document: Document,
        in index: IndexTable,
        idKey: [UInt8],
        transaction: borrowing WriteTransaction
    ) throws {
        let prefix = Array(entry.key[..<entry.componentsCount])
        let candidates: [[UInt8]] = try transaction.withCursor(on: index.database) { cursor in
            var found: [[UInt8]] = []
            var next = try cursor.withSeek(atOrAfter: prefix) { key, _ in Self.classify(key, prefix: prefix, own: idKey)
            }
            while let step = next, step != .pastPrefix {
                if case .other(let id) = step { found.append(id) }
                // Only a cut key can stand for several different real values: keep looking.
                guard entry.isTruncated else { break }
                next = try cursor.withMove(.next) { key, _ in Self.classify(key, prefix: prefix, own: idKey) }
            }
            return found
        }
        let mine = index.values(in: document)
        for other in candidates {
            let theirs = try transaction.withValue(forKey: other, in: records) { record in
                index.values(in: try decodeDocument(record))
            }
            guard let theirs, !entry.isTruncated || theirs == mine else { continue }
            let shown = mine.map { $0.map(String.init(describing:)) ?? "missing" }.joined(separator: ", ")
            throw DataStoreError(
                .uniqueViolation,
                "unique index \(index.name) on \(name) already has (\(shown)) "
                    + "for another object")
        }
    }

    private enum Candidate: Equatable {
        case own
        case other([UInt8])
        case pastPrefix
    }

    /// Classifies an index key met while scanning the entries under `prefix`.
    private static func classify(_ key: UnsafeRawBufferPointer, prefix: [UInt8], own: [UInt8]) -> Candidate {
        guard key.count >= prefix.count, key.starts(with: prefix),
            let id = StorageKeys.idKey(inIndexKey: key)
        else { return .pastPrefix }
        return id.elementsEqual(own) ? .own : .other(Array(id))
    }
}
